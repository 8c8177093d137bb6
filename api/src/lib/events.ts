import type { RelayLog } from "@agenthub/relayer/protocol";
import { type Abi, type Log, parseEventLogs } from "viem";

/** Decoded arguments of every `eventName` log in a relayed transaction's receipt. */
export function eventArgs<T>(abi: Abi, logs: RelayLog[], eventName: string): T[] {
  return parseEventLogs({ abi, logs: logs as unknown as Log[], eventName }).map(
    (l) => (l as unknown as { args: T }).args,
  );
}

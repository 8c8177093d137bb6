// Counts the logs of a relayed transaction that the indexer turns into rows of chain.run_event (RunEscrow) and
// chain.stake_event (StakeVault), so a write can wait until every one of them is indexed. Logs that feed other
// tables (credits, fee sweeps, settings) are not counted.
import { RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import type { RelayLog } from "@agenthub/relayer/protocol";
import { type Abi, type Address, isAddressEqual, type Log, parseEventLogs } from "viem";

const RUN_EVENT_LOGS = new Set([
  "RunCreated",
  "RunClaimed",
  "RunStarted",
  "RunSubmitted",
  "RevisionRequested",
  "RunCompleted",
  "RunRejected",
  "RunDisputed",
  "DisputeResolved",
  "RunCancelled",
  "RunTimedOut",
  "RunReleasedAfterReview",
  "DisputeExpired",
]);
const STAKE_EVENT_LOGS = new Set(["Staked", "Slashed", "WithdrawalRequested", "Withdrawn", "TrustStateChanged"]);

function count(abi: Abi, contract: Address, logs: RelayLog[], names: Set<string>): number {
  const own = (logs as unknown as Log[]).filter((l) => isAddressEqual(l.address, contract));
  return parseEventLogs({ abi, logs: own }).filter((l) => names.has(l.eventName)).length;
}

/** Rows the transaction adds to chain.run_event. */
export const runEventCount = (escrow: Address, logs: RelayLog[]) => count(RunEscrowAbi, escrow, logs, RUN_EVENT_LOGS);

/** Rows the transaction adds to chain.stake_event (a slash adds Slashed and TrustStateChanged, ...). */
export const stakeEventCount = (vault: Address, logs: RelayLog[]) =>
  count(StakeVaultAbi, vault, logs, STAKE_EVENT_LOGS);

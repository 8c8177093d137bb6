// The payout jobs' one escrow call (fee sweep, reward payout): RunEscrow functions anyone may call that pay only a
// fixed party. One call per job (a retried job reuses its idempotency key instead of sending again); a refusal that
// leaves nothing to retry (paid already by someone else, or a pause landed) is an answer, not a failure.
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import { RelayerCallError } from "@agenthub/relayer/client";
import type { ContractFunctionArgs } from "viem";
import type { Deps } from "../context.ts";

type Payout = "sweepFees" | "payRewards";

/** The transaction, or why the escrow refused: `nothingToPay` (its "nothing to" error) or a pause. */
export async function relayPayout<name extends Payout>(
  deps: Deps,
  functionName: name,
  args: ContractFunctionArgs<typeof RunEscrowAbi, "nonpayable", name>,
  nothingToPay: string,
  idempotencyKey: string,
): Promise<{ txHash: string } | { refused: "nothing-to-pay" | "paused" }> {
  try {
    const { txHash } = await deps.relayer.call("RunEscrow", RunEscrowAbi, functionName, args, idempotencyKey);
    return { txHash };
  } catch (error) {
    if (!(error instanceof RelayerCallError)) throw error;
    if (error.errorName === "EnforcedPause") return { refused: "paused" };
    if (error.errorName === nothingToPay) return { refused: "nothing-to-pay" };
    throw error;
  }
}

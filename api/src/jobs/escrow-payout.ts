// The payout jobs' escrow calls (fee sweep, reward payout, run exits): RunEscrow functions anyone may call that pay
// only a fixed party. One call per job (a retried job reuses its idempotency key instead of sending again); a refusal that
// leaves nothing to retry (paid already by someone else, or a pause landed) is an answer, not a failure.
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import { RelayerCallError } from "@agenthub/relayer/client";
import type { ContractFunctionArgs } from "viem";
import type { Deps } from "../context.ts";

type Payout = "sweepFees" | "payRewards" | "releaseAfterReview" | "expireDispute";

/** The transaction, or why the escrow refused: `nothingToPay` (its "nothing to" errors) or a pause. */
export async function relayPayout<name extends Payout>(
  deps: Deps,
  functionName: name,
  args: ContractFunctionArgs<typeof RunEscrowAbi, "nonpayable", name>,
  nothingToPay: string | readonly string[],
  idempotencyKey: string,
): Promise<{ txHash: string } | { refused: "nothing-to-pay" | "paused" }> {
  try {
    const { txHash } = await deps.relayer.call("RunEscrow", RunEscrowAbi, functionName, args, idempotencyKey);
    return { txHash };
  } catch (error) {
    if (!(error instanceof RelayerCallError)) throw error;
    if (error.errorName === "EnforcedPause") return { refused: "paused" };
    if (error.errorName !== undefined && [nothingToPay].flat().includes(error.errorName))
      return { refused: "nothing-to-pay" };
    throw error;
  }
}

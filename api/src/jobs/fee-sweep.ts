// Sends the escrow's accrued fees to the treasury once they reach FEE_SWEEP_THRESHOLD (USDC base units): one
// `RunEscrow.sweepFees` (open to anyone, pays only the treasury) relayed per period at most, so the treasury is
// credited without a transfer per completed run. Below the threshold, or while the escrow is paused, nothing is sent.
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import type { Deps } from "../context.ts";
import { relayPayout } from "./escrow-payout.ts";

export interface SweepResult {
  accrued: string;
  swept: string | null;
  txHash?: string;
  skipped?: "below-threshold" | "paused";
}

export async function sweepFeesIfDue(deps: Deps, jobId: string): Promise<SweepResult> {
  const escrow = deps.deployments.contracts.RunEscrow.address;
  const [accrued, paused] = await Promise.all([
    deps.chain.readContract({ address: escrow, abi: RunEscrowAbi, functionName: "feesAccrued" }),
    deps.chain.readContract({ address: escrow, abi: RunEscrowAbi, functionName: "paused" }),
  ]);
  if (accrued < deps.env.FEE_SWEEP_THRESHOLD || accrued === 0n) {
    return { accrued: accrued.toString(), swept: null, skipped: "below-threshold" };
  }
  if (paused) return { accrued: accrued.toString(), swept: null, skipped: "paused" };
  // Someone else swept first (anyone may), or a pause landed in between: nothing is owed to retry.
  const sent = await relayPayout(deps, "sweepFees", [], "RunEscrowNothingToSweep", `fee-sweep:${jobId}`);
  if ("refused" in sent) {
    return { accrued: accrued.toString(), swept: null, skipped: sent.refused === "paused" ? "paused" : undefined };
  }
  deps.logger.info({ accrued: accrued.toString(), txHash: sent.txHash }, "accrued fees swept to the treasury");
  return { accrued: accrued.toString(), swept: accrued.toString(), txHash: sent.txHash };
}

// Pays approved runs' rewards to the agents' owners: one `RunEscrow.payRewards` (open to anyone, pays only each
// agent token's owner) relayed per tick for up to REWARD_PAYOUT_BATCH agents. An approval writes the reward to the
// agent's word in the escrow instead of transferring it (approve stays under 50k gas); the payout batches every
// agent approved since the last tick, so the relayer pays one transaction's base cost for all of them.
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import { RelayerCallError } from "@agenthub/relayer/client";
import type { Deps } from "../context.ts";
import { agentsOwedRewards } from "../stores/rewards.ts";

export interface PayoutResult {
  agents: string[];
  txHash?: string;
  skipped?: "nothing-owed" | "paused";
}

export async function payRewardsDue(deps: Deps, jobId: string): Promise<PayoutResult> {
  const owed = await agentsOwedRewards(deps, deps.env.REWARD_PAYOUT_BATCH);
  if (owed.length === 0) return { agents: [], skipped: "nothing-owed" };
  const agents = owed.map(String);
  try {
    // One job, one payout: a retried job reuses its idempotency key instead of sending again.
    const result = await deps.relayer.call("RunEscrow", RunEscrowAbi, "payRewards", [owed], `reward-payout:${jobId}`);
    deps.logger.info({ agents, txHash: result.txHash }, "agents' rewards paid to their owners");
    return { agents, txHash: result.txHash };
  } catch (error) {
    // Paid already (anyone may call it, the indexer had not caught up), or a pause landed: nothing to retry.
    if (
      error instanceof RelayerCallError &&
      (error.errorName === "RunEscrowNothingToPay" || error.errorName === "EnforcedPause")
    ) {
      return { agents, skipped: error.errorName === "EnforcedPause" ? "paused" : "nothing-owed" };
    }
    throw error;
  }
}

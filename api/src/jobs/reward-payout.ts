// Pays approved runs' rewards to the agents' owners: one `RunEscrow.payRewards` (open to anyone, pays only each
// agent token's owner) relayed per tick for up to REWARD_PAYOUT_BATCH agents. An approval writes the reward to the
// agent's word in the escrow instead of transferring it (approve stays under 50k gas); the payout batches every
// agent approved since the last tick, so the relayer pays one transaction's base cost for all of them.
import type { Deps } from "../context.ts";
import { agentsOwedRewards } from "../stores/rewards.ts";
import { relayPayout } from "./escrow-payout.ts";

export interface PayoutResult {
  agents: string[];
  txHash?: string;
  skipped?: "nothing-owed" | "paused";
}

export async function payRewardsDue(deps: Deps, jobId: string): Promise<PayoutResult> {
  const owed = await agentsOwedRewards(deps, deps.env.REWARD_PAYOUT_BATCH);
  if (owed.length === 0) return { agents: [], skipped: "nothing-owed" };
  const agents = owed.map(String);
  // Paid already counts as nothing owed: anyone may call payRewards, and the indexer may not have caught up.
  const sent = await relayPayout(deps, "payRewards", [owed], "RunEscrowNothingToPay", `reward-payout:${jobId}`);
  if ("refused" in sent) return { agents, skipped: sent.refused === "paused" ? "paused" : "nothing-owed" };
  deps.logger.info({ agents, txHash: sent.txHash }, "agents' rewards paid to their owners");
  return { agents, txHash: sent.txHash };
}

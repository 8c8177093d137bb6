// Agents' unpaid rewards as the indexer shows them (chain.agent_reward: RunCompleted adds, RewardsPaid clears), for
// the payout job. The escrow holds the truth (RunEscrow.rewardsOf); a row the chain already paid only costs the
// job a skipped entry.
import { asc, isNotNull } from "drizzle-orm";
import type { Deps } from "../context.ts";
import { createDb } from "../db/index.ts";

/** Up to `limit` agents with unpaid rewards, the longest-waiting first (`owedSince` is set exactly while any is unpaid). */
export async function agentsOwedRewards(deps: Pick<Deps, "pool" | "views">, limit: number): Promise<bigint[]> {
  const v = deps.views.agentReward;
  const rows = await createDb(deps.pool)
    .select({ agentId: v.agentId })
    .from(v)
    .where(isNotNull(v.owedSince))
    .orderBy(asc(v.owedSince))
    .limit(limit);
  return rows.map((r) => BigInt(r.agentId));
}

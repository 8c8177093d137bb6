// The indexer's side of the reputation rule (@agenthub/common/reputation-rule): the facts come from its tables.
import type { Context } from "ponder:registry";
import { agent, reputationPair } from "ponder:schema";
import { claimCounts as counts, reputationPairId } from "@agenthub/common/reputation-rule";

/** Decides at claim time whether this claim counts, and records the pair's counted claim when it does. */
export async function claimCounts(
  context: Context,
  run: { poster: `0x${string}`; reward: bigint },
  agentId: bigint,
  timestamp: bigint,
): Promise<boolean> {
  const claimer = await context.db.find(agent, { id: agentId });
  const id = reputationPairId(run.poster, agentId);
  const pair = await context.db.find(reputationPair, { id });
  const eligible = counts({
    reward: run.reward,
    poster: run.poster,
    claimer: claimer ? { owner: claimer.owner, wallet: claimer.wallet } : undefined,
    pairLastCountedAt: pair?.lastCountedAt,
    timestamp,
  });
  if (!eligible) return false;
  await context.db
    .insert(reputationPair)
    .values({ id, lastCountedAt: timestamp })
    .onConflictDoUpdate({ lastCountedAt: timestamp });
  return true;
}

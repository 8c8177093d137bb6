// Which claims count toward an agent's reputation (totalClaimed, completions, failures, volume). Runs of negligible
// value, runs an agent's own owner or wallet posted, and more than one run a day between the same poster and agent
// would otherwise let two addresses farm completions cheaply (see docs/decisions.md, "Reputation counts runs of
// real value between distinct parties").
import type { Context } from "ponder:registry";
import { agent, reputationPair } from "ponder:schema";

/** 1 USDC: below it a run moves no reputation (its 5% fee would be a few cents). */
export const REPUTATION_MIN_REWARD = 1_000_000n;
/** One counted run per (poster, agent) pair per day of chain time. */
export const REPUTATION_PAIR_WINDOW = 24n * 3600n;

/** Decides at claim time whether this claim counts, and records the pair's counted claim when it does. */
export async function claimCounts(
  context: Context,
  run: { poster: `0x${string}`; reward: bigint },
  agentId: bigint,
  timestamp: bigint,
): Promise<boolean> {
  if (run.reward < REPUTATION_MIN_REWARD) return false;
  const claimer = await context.db.find(agent, { id: agentId });
  const poster = run.poster.toLowerCase();
  if (claimer && (claimer.owner.toLowerCase() === poster || claimer.wallet.toLowerCase() === poster)) return false;
  const id = `${poster}:${agentId}`;
  const pair = await context.db.find(reputationPair, { id });
  if (pair && timestamp - pair.lastCountedAt < REPUTATION_PAIR_WINDOW) return false;
  await context.db
    .insert(reputationPair)
    .values({ id, lastCountedAt: timestamp })
    .onConflictDoUpdate({ lastCountedAt: timestamp });
  return true;
}

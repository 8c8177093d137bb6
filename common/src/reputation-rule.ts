// Which claims count toward an agent's reputation (totalClaimed, completions, failures, volume): runs of real value
// between distinct parties, one per poster and agent a day (see docs/decisions.md, "Reputation counts runs of real
// value between distinct parties"). Shared by the indexer, which applies it to each RunClaimed event, and
// scripts/recompute-reputation.ts, which replays the chain's events to audit published scores.

/** 1 USDC: below it a run moves no reputation (its 5% fee would be a few cents). */
export const REPUTATION_MIN_REWARD = 1_000_000n;
/** One counted run per (poster, agent) pair per day of chain time. */
export const REPUTATION_PAIR_WINDOW = 24n * 3600n;

export interface ClaimFacts {
  reward: bigint;
  poster: string;
  /** The claiming agent's token owner and wallet when it claimed (undefined when unknown). */
  claimer?: { owner: string; wallet: string };
  /** Chain time of the pair's last counted claim, if any. */
  pairLastCountedAt?: bigint;
  timestamp: bigint;
}

/** Whether a claim counts; when it does, the caller records `timestamp` as the pair's last counted claim. */
export function claimCounts(f: ClaimFacts): boolean {
  if (f.reward < REPUTATION_MIN_REWARD) return false;
  const poster = f.poster.toLowerCase();
  if (f.claimer && (f.claimer.owner.toLowerCase() === poster || f.claimer.wallet.toLowerCase() === poster)) {
    return false;
  }
  return f.pairLastCountedAt === undefined || f.timestamp - f.pairLastCountedAt >= REPUTATION_PAIR_WINDOW;
}

/** The pair key the rule counts by. */
export const reputationPairId = (poster: string, agentId: bigint) => `${poster.toLowerCase()}:${agentId}`;

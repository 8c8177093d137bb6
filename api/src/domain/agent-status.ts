// The trust ladder, derived from indexed chain facts (stake, slashes, completions) and chain time.
export const MIN_STAKE = 20_000_000n;
export const ESTABLISHED_AFTER_SECONDS = 30n * 24n * 3600n;
export const ESTABLISHED_COMPLETIONS = 5;
export const BAN_AFTER_FULL_SLASHES = 3;

export type AgentStatus = "UNVERIFIED" | "PROVISIONAL" | "ESTABLISHED" | "FROZEN" | "BANNED";

export interface StakeFacts {
  amount: bigint;
  pendingWithdrawal: bigint;
  stakedAt: bigint | null;
  lastStakeSeq: bigint | null;
  lastSlashSeq: bigint | null;
  fullSlashCount: number;
}

export function activeStake(stake: StakeFacts | null): bigint {
  return stake ? stake.amount - stake.pendingWithdrawal : 0n;
}

/**
 * BANNED after 3 full slashes (permanent); FROZEN after a slash until the agent stakes again to at least the
 * minimum; PROVISIONAL with the minimum staked; ESTABLISHED after 30 days staked and 5 completions.
 */
export function deriveStatus(stake: StakeFacts | null, completions: number, now: bigint): AgentStatus {
  if (!stake) return "UNVERIFIED";
  if (stake.fullSlashCount >= BAN_AFTER_FULL_SLASHES) return "BANNED";
  const active = activeStake(stake);
  const slashedSinceLastStake = stake.lastSlashSeq !== null && (stake.lastStakeSeq ?? 0n) < stake.lastSlashSeq;
  if (slashedSinceLastStake) return "FROZEN";
  if (active < MIN_STAKE) return stake.lastSlashSeq !== null && active > 0n ? "FROZEN" : "UNVERIFIED";
  if (
    stake.stakedAt !== null &&
    now - stake.stakedAt >= ESTABLISHED_AFTER_SECONDS &&
    completions >= ESTABLISHED_COMPLETIONS
  ) {
    return "ESTABLISHED";
  }
  return "PROVISIONAL";
}

export const canClaimRuns = (status: AgentStatus) => status === "PROVISIONAL" || status === "ESTABLISHED";

// The trust ladder: FROZEN and BANNED are the StakeVault's own trust state (indexed from TrustStateChanged; the
// contracts refuse claims and, for banned agents, deposits); the rest is derived from indexed stake, completions
// and chain time. The minimum stake is StakeVault.minStake, a governance parameter (api/src/lib/protocol.ts).
export const ESTABLISHED_AFTER_SECONDS = 30n * 24n * 3600n;
export const ESTABLISHED_COMPLETIONS = 5;

export type AgentStatus = "UNVERIFIED" | "PROVISIONAL" | "ESTABLISHED" | "FROZEN" | "BANNED";
/** IStakeVault.TrustState as the indexer names it. */
export type TrustState = "Good" | "Frozen" | "Banned";

export interface StakeFacts {
  amount: bigint;
  pendingWithdrawal: bigint;
  stakedAt: bigint | null;
  trustState: TrustState;
  /** Slashes the vault counted (the third bans). */
  strikes: number;
}

export function activeStake(stake: StakeFacts | null): bigint {
  return stake ? stake.amount - stake.pendingWithdrawal : 0n;
}

/**
 * BANNED and FROZEN as the vault says (a slash freezes, the third slash or governance bans, staking back to the
 * minimum unfreezes); otherwise PROVISIONAL with `minStake` (the vault's current minimum) active, ESTABLISHED after
 * 30 days staked and 5 completions, else UNVERIFIED.
 */
export function deriveStatus(
  stake: StakeFacts | null,
  completions: number,
  now: bigint,
  minStake: bigint,
): AgentStatus {
  if (!stake) return "UNVERIFIED";
  if (stake.trustState === "Banned") return "BANNED";
  if (stake.trustState === "Frozen") return "FROZEN";
  if (activeStake(stake) < minStake) return "UNVERIFIED";
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

/** The indexer's trust_state column (null when the agent never staked nor was banned). */
export function toTrustState(value: string | null): TrustState {
  return value === "Frozen" || value === "Banned" ? value : "Good";
}

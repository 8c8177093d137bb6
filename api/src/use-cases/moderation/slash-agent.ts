// Admin slash: a percentage of the agent's stake to the treasury, on chain (the vault counts the strike: FROZEN,
// BANNED at the third, and limits moderation slashes per day). An idempotency key binds one slash: a retry with it
// resumes the first one (the relayer answers the same transaction), another slash with it is refused.
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import type { Deps } from "../../context.ts";
import { activeStake } from "../../domain/agent-status.ts";
import { ApiError, apiError } from "../../errors.ts";
import { idempotencyKeyReused } from "../../lib/idempotency.ts";
import { stakeEventCount } from "../../lib/indexed-events.ts";
import { relayMapped } from "../../lib/relay-mapped.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { claimSlashKey, releaseSlashKey, slashHistory, stakeEventsOfTx } from "../../stores/agents.ts";
import { requireAgent, requireAgentAt } from "../guards.ts";

export interface SlashAgentParameters {
  agentId: number;
  reason: string;
  /** Percent of the stake, (0, 100]. */
  percentage: number;
  idempotencyKey?: string;
}

/** True when `key` is new (now bound to this slash); false for a retry of the same slash; 422 for another one. */
async function bindSlashKey(deps: Deps, key: string, agentId: number, bps: number, reason: string) {
  const claim = await claimSlashKey(deps, key, { agentId, bps, reason });
  if (claim === "other") throw idempotencyKeyReused();
  return claim === "new";
}

export async function slashAgent(deps: Deps, p: SlashAgentParameters) {
  const { agentId: id, reason, idempotencyKey: key } = p;
  await requireAgent(deps, id);
  const bps = Math.round(p.percentage * 100);
  // A retry of a keyed slash resumes the first one, even if that slash took the whole stake.
  const retry = key !== undefined && !(await bindSlashKey(deps, key, id, bps, reason));
  if (!retry) {
    // The chain decides what can be slashed (the indexer may not have seen the latest deposit yet).
    const onChain = await deps.chain.readContract({
      address: deps.deployments.contracts.StakeVault.address,
      abi: StakeVaultAbi,
      functionName: "stakeOf",
      args: [BigInt(id)],
    });
    if (onChain === 0n) {
      if (key !== undefined) await releaseSlashKey(deps, key);
      throw apiError("INSUFFICIENT_STAKE", "the agent has no stake to slash");
    }
  }
  // The vault sends moderation slashes to the treasury, needs a reason and limits how many it takes per day.
  const relayed = await relayMapped(
    deps,
    "StakeVault",
    StakeVaultAbi,
    "slash",
    [BigInt(id), BigInt(bps), reason],
    key === undefined ? undefined : `admin-slash:${key}`,
    { StakeVaultSlashRateLimited: "SLASH_RATE_LIMITED" },
    { agentId: BigInt(id) },
  ).catch(async (error) => {
    // Refused in the relayer's simulation: nothing was sent, so the key may be used again later.
    if (key !== undefined && error instanceof ApiError && error.code === "SLASH_RATE_LIMITED") {
      await releaseSlashKey(deps, key);
    }
    throw error;
  });
  // The slash and the trust state it sets (FROZEN, or BANNED at the third strike) are both indexed.
  const rows = stakeEventCount(deps.deployments.contracts.StakeVault.address, relayed.logs);
  const slashed = await waitForIndexer(
    `slash ${relayed.txHash}`,
    async () => {
      const row = await stakeEventsOfTx(deps, relayed.txHash);
      return row.n >= rows && row.slashed !== null ? { amount: row.slashed } : undefined;
    },
    deps.env.INDEXER_WAIT_MS,
  );
  const { agent: updated, status } = await requireAgentAt(deps, id);
  return {
    success: true,
    agentId: id,
    slashedAmount: slashed.amount,
    percentage: bps / 100,
    remainingStake: activeStake(updated.stake).toString(),
    status,
    txHash: relayed.txHash,
    slashHistory: await slashHistory(deps, id),
  };
}

export type SlashAgentReturnType = Awaited<ReturnType<typeof slashAgent>>;

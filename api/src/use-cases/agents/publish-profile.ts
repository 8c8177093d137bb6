// Relayed profile writes cost the platform gas, so they are bounded: at most one setTokenURI per agent per coalescing
// window (updates inside it are saved at once and published together by a job when it ends), and quotas per agent
// and per owner per day (429 RELAY_QUOTA_EXCEEDED). Counted in Postgres, so every API process shares them.
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { clearPendingPublish, givePublishSlotBack, pendingPublishes, takePublishSlot } from "../../stores/profiles.ts";

const takeSlot = (deps: Deps, agentId: number) => takePublishSlot(deps, agentId, deps.env.PROFILE_COALESCE_SECONDS);
const giveBack = (deps: Deps, agentId: number, pending: boolean) =>
  givePublishSlotBack(deps, agentId, deps.env.PROFILE_COALESCE_SECONDS, pending);

const DAY = 86_400;

/** Relayed profile transactions allowed per agent and per owner address per UTC-aligned day. */
export const relayQuotas = (deps: Deps) => ({
  perAgent: [{ windowSec: DAY, max: deps.env.PROFILE_RELAYS_PER_AGENT_DAY }],
  perOwner: [{ windowSec: DAY, max: deps.env.PROFILE_RELAYS_PER_OWNER_DAY }],
});

/** Counts one relayed write against the agent's and the owner's daily quotas; the retry time when over. */
async function spendQuota(deps: Deps, agentId: number, owner: string): Promise<number | null> {
  const q = relayQuotas(deps);
  const [agent, byOwner] = await Promise.all([
    deps.rateLimiter.hit(`relay-profile:agent:${agentId}`, q.perAgent),
    deps.rateLimiter.hit(`relay-profile:owner:${owner.toLowerCase()}`, q.perOwner),
  ]);
  if (agent.allowed && byOwner.allowed) return null;
  return Math.max(agent.allowed ? 0 : agent.reset, byOwner.allowed ? 0 : byOwner.reset);
}

export type PublishOutcome = { sent: true; txHash: string } | { sent: false; reason: "coalesced" };

/**
 * Publishes `uri` as the agent's token URI now, or leaves it to the coalescing job. Throws 429
 * RELAY_QUOTA_EXCEEDED (nothing saved by the caller yet) when the agent or its owner used up the day's quota.
 */
export async function publishProfile(deps: Deps, agentId: number, owner: string, uri: string): Promise<PublishOutcome> {
  if (!(await takeSlot(deps, agentId))) return { sent: false, reason: "coalesced" };
  const retryAt = await spendQuota(deps, agentId, owner);
  if (retryAt !== null) {
    await giveBack(deps, agentId, false);
    throw apiError(
      "RELAY_QUOTA_EXCEEDED",
      `on-chain profile updates are limited to ${deps.env.PROFILE_RELAYS_PER_AGENT_DAY} per agent and ${deps.env.PROFILE_RELAYS_PER_OWNER_DAY} per owner per day; retry after ${new Date(retryAt * 1000).toISOString()}`,
    );
  }
  const sent = await send(deps, agentId, uri);
  return { sent: true, txHash: sent };
}

async function send(deps: Deps, agentId: number, uri: string): Promise<string> {
  const cid = uri.replace(/^ipfs:\/\//, "");
  const result = await deps.relayer.call(
    "AgentIdentity",
    AgentIdentityAbi,
    "setTokenURI",
    [BigInt(agentId), uri],
    `profile:${agentId}:${cid}`,
    { agentId: BigInt(agentId) },
  );
  return result.txHash;
}

/**
 * The coalescing job: publishes the latest saved profile of every agent whose window has ended. An agent over its
 * quota keeps waiting (its profile is served from the API meanwhile) until the quota's window resets.
 */
export async function publishPendingProfiles(deps: Deps): Promise<{ sent: number; waiting: number }> {
  const rows = await pendingPublishes(deps, deps.env.PROFILE_COALESCE_SECONDS);
  let sent = 0;
  let waiting = 0;
  for (const row of rows) {
    const { agentId } = row;
    if (row.uri === row.onChain) {
      await clearPendingPublish(deps, agentId);
      continue;
    }
    if (!(await takeSlot(deps, agentId))) continue; // another process took it
    if ((await spendQuota(deps, agentId, row.owner)) !== null) {
      await giveBack(deps, agentId, true);
      waiting++;
      continue;
    }
    try {
      await send(deps, agentId, row.uri);
      sent++;
    } catch (err) {
      deps.logger.warn({ agentId, err: (err as Error).message }, "deferred profile publish failed");
      await giveBack(deps, agentId, true);
    }
  }
  return { sent, waiting };
}

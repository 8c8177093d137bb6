// Relayed profile writes cost the platform gas, so they are bounded: at most one setTokenURI per agent per coalescing
// window (updates inside it are saved at once and published together by a job when it ends), and quotas per agent
// and per owner per day (429 RELAY_QUOTA_EXCEEDED). Counted in Postgres, so every API process shares them.
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import type { Deps } from "../../context.ts";
import { ApiError } from "../../errors.ts";

const DAY = 86_400;

/** Relayed profile transactions allowed per agent and per owner address per UTC-aligned day. */
export const relayQuotas = (deps: Deps) => ({
  perAgent: [{ windowSec: DAY, max: deps.env.PROFILE_RELAYS_PER_AGENT_DAY }],
  perOwner: [{ windowSec: DAY, max: deps.env.PROFILE_RELAYS_PER_OWNER_DAY }],
});

/**
 * Takes the agent's send slot if its last relayed profile write is older than the coalescing window; otherwise
 * marks a newer profile as waiting. True: send now.
 */
async function takeSlot(deps: Deps, agentId: number): Promise<boolean> {
  const { rowCount } = await deps.pool.query(
    `insert into api.profile_publish as p (agent_id, last_sent_at) values ($1, now())
     on conflict (agent_id) do update set last_sent_at = now(), pending_since = null
       where p.last_sent_at < now() - make_interval(secs => $2)`,
    [agentId, deps.env.PROFILE_COALESCE_SECONDS],
  );
  if (rowCount === 1) return true;
  await deps.pool.query(
    "update api.profile_publish set pending_since = coalesce(pending_since, now()) where agent_id = $1",
    [agentId],
  );
  return false;
}

/** Gives a taken slot back (nothing was sent); `pending`: a saved profile still waits for the job. */
async function giveBack(deps: Deps, agentId: number, pending: boolean): Promise<void> {
  await deps.pool.query(
    `update api.profile_publish set last_sent_at = now() - make_interval(secs => $2 + 1),
       pending_since = case when $3 then coalesce(pending_since, now()) end where agent_id = $1`,
    [agentId, deps.env.PROFILE_COALESCE_SECONDS, pending],
  );
}

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
    throw new ApiError(
      429,
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
  );
  return result.txHash;
}

/**
 * The coalescing job: publishes the latest saved profile of every agent whose window has ended. An agent over its
 * quota keeps waiting (its profile is served from the API meanwhile) until the quota's window resets.
 */
export async function publishPendingProfiles(deps: Deps): Promise<{ sent: number; waiting: number }> {
  const schema = deps.env.INDEXER_SCHEMA;
  const { rows } = await deps.pool.query<{ agent_id: string; owner: string; uri: string; on_chain: string }>(
    `select p.agent_id::text, a.owner, 'ipfs://' || ap.metadata_cid uri, a.metadata_uri on_chain
       from api.profile_publish p
       join api.agent_profile ap on ap.agent_id = p.agent_id
       join ${schema}.agent a on a.id = p.agent_id
      where p.pending_since is not null and p.last_sent_at < now() - make_interval(secs => $1)
      order by p.pending_since limit 100`,
    [deps.env.PROFILE_COALESCE_SECONDS],
  );
  let sent = 0;
  let waiting = 0;
  for (const row of rows) {
    const agentId = Number(row.agent_id);
    if (row.uri === row.on_chain) {
      await deps.pool.query("update api.profile_publish set pending_since = null where agent_id = $1", [agentId]);
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

// Agent profiles (api.agent_profile: the latest off-chain copy, the chain keeps its ipfs:// URI) and the relayed
// profile writes per agent (api.profile_publish: when the last one was sent, since when a newer one waits).
import { and, eq, sql } from "drizzle-orm";
import type pg from "pg";
import type { Deps } from "../context.ts";
import { agentProfile } from "../db/schema/index.ts";

/** The profile's text fields: what agents describe themselves with (searched, shown on every agent page). */
export interface ProfileText {
  name: string;
  description: string;
  capabilities: string[];
  programmingLangs: string[];
  domains: string[];
  tools: string[];
}

export interface ProfileFields extends ProfileText {
  endpoints: Record<string, string | undefined>;
  image?: string | null;
}

/** Saves the agent's profile and the CID of the metadata file it was published as. */
export async function saveProfile(deps: Pick<Deps, "db">, agentId: number, p: ProfileFields, metadataCid: string) {
  const values = {
    name: p.name,
    description: p.description,
    capabilities: p.capabilities,
    programmingLangs: p.programmingLangs,
    domains: p.domains,
    tools: p.tools,
    endpoints: p.endpoints,
    image: p.image ?? null,
    metadataCid,
  };
  await deps.db
    .insert(agentProfile)
    .values({ agentId, ...values })
    .onConflictDoUpdate({ target: agentProfile.agentId, set: { ...values, updatedAt: sql`now()` } });
}

/** The profile a token was minted with, written once (a later update wins over it). */
export async function insertInitialProfile(
  tx: Pick<pg.PoolClient, "query">,
  agentId: number,
  p: ProfileFields,
  metadataCid: string,
): Promise<void> {
  await tx.query(
    `insert into api.agent_profile
       (agent_id, name, description, capabilities, programming_langs, domains, tools, endpoints, image, metadata_cid)
     values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) on conflict (agent_id) do nothing`,
    [
      agentId,
      p.name,
      p.description,
      p.capabilities,
      p.programmingLangs,
      p.domains,
      p.tools,
      JSON.stringify(p.endpoints),
      p.image ?? null,
      metadataCid,
    ],
  );
}

/** Whether the indexer shows `uri` as the agent's token URI. */
export async function tokenUriIndexed(deps: Pick<Deps, "db" | "views">, agentId: number, uri: string) {
  const a = deps.views.agent;
  const rows = await deps.db
    .select({ id: a.id })
    .from(a)
    .where(and(eq(a.id, String(agentId)), eq(a.metadataUri, uri)));
  return rows.length > 0;
}

type PublishDeps = Pick<Deps, "pool" | "views">;

/**
 * Takes the agent's send slot if its last relayed profile write is older than `windowSeconds`; otherwise marks a
 * newer profile as waiting. True: send now.
 */
export async function takePublishSlot(deps: PublishDeps, agentId: number, windowSeconds: number): Promise<boolean> {
  const { rowCount } = await deps.pool.query(
    `insert into api.profile_publish as p (agent_id, last_sent_at) values ($1, now())
     on conflict (agent_id) do update set last_sent_at = now(), pending_since = null
       where p.last_sent_at < now() - make_interval(secs => $2)`,
    [agentId, windowSeconds],
  );
  if (rowCount === 1) return true;
  await deps.pool.query(
    "update api.profile_publish set pending_since = coalesce(pending_since, now()) where agent_id = $1",
    [agentId],
  );
  return false;
}

/** Gives a taken slot back (nothing was sent); `pending`: a saved profile still waits for the job. */
export async function givePublishSlotBack(
  deps: PublishDeps,
  agentId: number,
  windowSeconds: number,
  pending: boolean,
): Promise<void> {
  await deps.pool.query(
    `update api.profile_publish set last_sent_at = now() - make_interval(secs => $2 + 1),
       pending_since = case when $3 then coalesce(pending_since, now()) end where agent_id = $1`,
    [agentId, windowSeconds, pending],
  );
}

/** Agents whose saved profile waits and whose window has ended, oldest first (at most 100). */
export async function pendingPublishes(deps: PublishDeps, windowSeconds: number) {
  const { rows } = await deps.pool.query<{ agent_id: string; owner: string; uri: string; on_chain: string }>(
    `select p.agent_id::text, a.owner, 'ipfs://' || ap.metadata_cid uri, a.metadata_uri on_chain
       from api.profile_publish p
       join api.agent_profile ap on ap.agent_id = p.agent_id
       join ${deps.views.names.agent} a on a.id = p.agent_id
      where p.pending_since is not null and p.last_sent_at < now() - make_interval(secs => $1)
      order by p.pending_since limit 100`,
    [windowSeconds],
  );
  return rows.map((r) => ({ agentId: Number(r.agent_id), owner: r.owner, uri: r.uri, onChain: r.on_chain }));
}

export async function clearPendingPublish(deps: PublishDeps, agentId: number): Promise<void> {
  await deps.pool.query("update api.profile_publish set pending_since = null where agent_id = $1", [agentId]);
}

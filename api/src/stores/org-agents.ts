// What an organization's agents add up to (stats, the white-label landing page) and the directory of the agents an
// organization sees: its own and those of organizations sharing reputation with it (stores/org-sharing.ts).
import { eq, sql } from "drizzle-orm";
import type { Deps } from "../context.ts";
import { orgUsage } from "../db/schema/index.ts";
import { type AgentRecord, agentSelect, toAgentRecord } from "./agents.ts";

type Reader = Pick<Deps, "pool" | "views">;

/** Active stake: at least 20 USDC (6 decimals) not pending withdrawal. */
const ACTIVE_STAKE = "20000000";

export interface OrgAgentFacts {
  total: number;
  active: number;
  avgReputation: number;
  /** Runs posted by the organization's agents (their wallets or owners). */
  created: number;
  /** Completed runs the organization's agents worked on or posted, and their rewards (base units). */
  completed: number;
  volume: string;
}

/** The organization's agents and their runs, in one statement over the indexer's views. */
export async function orgAgentFacts(deps: Reader, orgId: string): Promise<OrgAgentFacts> {
  const schema = deps.views.names;
  const { rows } = await deps.pool.query<{
    total: number;
    active: number;
    avg_rep: number | null;
    created: number;
    completed: number;
    volume: string;
  }>(
    `with agents as (
       select a.id, lower(a.wallet) wallet, lower(a.owner) owner from api.agent_wallet w
         join ${schema.agent} a on a.id = w.agent_id where w.org_id = $1
     ),
     addrs as (select wallet addr from agents union select owner from agents),
     runs as (
       select r.* from ${schema.run} r
        where r.agent_id in (select id from agents) or lower(r.poster) in (select addr from addrs)
     )
     select (select count(*)::int from agents) total,
            (select count(*)::int from agents g join ${schema.stake} s on s.agent_id = g.id
              where s.amount - s.pending_withdrawal >= $2::numeric) active,
            (select avg(rep.score)::float8 from api.reputation rep where rep.agent_id in (select id from agents)) avg_rep,
            (select count(*)::int from runs where lower(poster) in (select addr from addrs)) created,
            (select count(*)::int from runs where state = 'Completed') completed,
            (select coalesce(sum(reward), 0)::text from runs where state = 'Completed') volume`,
    [orgId, ACTIVE_STAKE],
  );
  const s = rows[0]!;
  return {
    total: s.total,
    active: s.active,
    avgReputation: Math.round((s.avg_rep ?? 0) * 100) / 100,
    created: s.created,
    completed: s.completed,
    volume: s.volume,
  };
}

/** Requests and x402 payments made with the organization's keys, all time. */
export async function orgUsageTotals(deps: Pick<Deps, "db">, orgId: string) {
  const [row] = await deps.db
    .select({
      requests: sql<string>`coalesce(sum(${orgUsage.requests}), 0)::text`,
      payments: sql<string>`coalesce(sum(${orgUsage.x402Payments}), 0)::text`,
      volume: sql<string>`coalesce(sum(${orgUsage.x402Volume}), 0)::text`,
    })
    .from(orgUsage)
    .where(eq(orgUsage.orgId, orgId));
  return { requests: Number(row!.requests), x402Payments: Number(row!.payments), x402Volume: row!.volume };
}

export interface DirectoryFilter {
  /** Lower-case capabilities the agent has all of (case-insensitive). */
  capabilities: string[];
  /** A lower-case domain the agent lists, or null. */
  domain: string | null;
  limit: number;
  offset: number;
}

/** One page of the agents of `orgIds` matching the filter, by id, with the organization of each. */
export async function orgDirectory(
  deps: Reader,
  orgIds: string[],
  f: DirectoryFilter,
): Promise<{ agents: { record: AgentRecord; orgId: string }[]; total: number }> {
  const where = `where w.org_id = any($1::text[])
      and (cardinality($2::text[]) = 0 or array(select lower(x) from unnest(p.capabilities) x) @> $2::text[])
      and ($3::text is null or $3::text = any(array(select lower(x) from unnest(p.domains) x)))`;
  const params = [orgIds, f.capabilities, f.domain];
  const [list, counted] = await Promise.all([
    deps.pool.query(`${agentSelect(deps.views.names)} ${where} order by a.id limit $4 offset $5`, [
      ...params,
      f.limit,
      f.offset,
    ]),
    deps.pool.query<{ n: number }>(
      `select count(*)::int n from api.agent_wallet w join api.agent_profile p on p.agent_id = w.agent_id
         join ${deps.views.names.agent} a on a.id = w.agent_id ${where}`,
      params,
    ),
  ]);
  return {
    agents: list.rows.map((row) => ({ record: toAgentRecord(row), orgId: row.org_id as string })),
    total: counted.rows[0]!.n,
  };
}

/** One agent, if it belongs to one of `orgIds`. */
export async function orgDirectoryAgent(deps: Reader, orgIds: string[], id: number): Promise<AgentRecord | null> {
  const { rows } = await deps.pool.query(
    `${agentSelect(deps.views.names)} where a.id = $1 and w.org_id = any($2::text[])`,
    [id, orgIds],
  );
  return rows[0] ? toAgentRecord(rows[0]) : null;
}

// Platform figures: totals from the indexer's views and stored reputation, and the most common profile tags, for
// the platform or (with an organization's key) one organization.
import type { Deps } from "../context.ts";
import { orgAgentIds, orgRunCondition } from "./org-scope.ts";

/** Escrow states of a funded run that is not finished yet (the API's OPEN .. SUBMITTED/REVISION_REQUESTED). */
export const ACTIVE_RUN_STATES = ["Open", "Claimed", "InProgress", "Submitted", "RevisionRequested", "Disputed"];

export interface PlatformStats {
  totalAgents: number;
  totalBounties: number;
  activeBounties: number;
  totalCompletions: number;
  totalVolume: string;
  averageReputation: number;
}

/**
 * totalBounties counts funded (on-chain) runs, activeBounties those not finished, totalCompletions the completed
 * ones, totalVolume the rewards paid to agents (base units). averageReputation averages every agent's score, 50 for
 * agents not computed yet. With `orgId`: the organization's agents and runs only (stores/org-scope.ts).
 */
export async function platformStats(deps: Pick<Deps, "pool" | "views">, orgId?: string): Promise<PlatformStats> {
  const s = deps.views.names;
  const params: unknown[] = [ACTIVE_RUN_STATES];
  let agents = "true";
  let runs = "true";
  if (orgId !== undefined) {
    params.push(orgId);
    agents = `a.id in ${orgAgentIds("$2")}`;
    runs = orgRunCondition(s.agent, "$2", "r.agent_id", "r.poster");
  }
  const { rows } = await deps.pool.query<{
    agents: string;
    runs: string;
    active: string;
    completions: string;
    volume: string;
    avg: number | null;
  }>(
    `with ag as (select a.id from ${s.agent} a where ${agents}),
          rn as (select r.state from ${s.run} r where ${runs})
     select (select count(*) from ag)::text agents,
            (select count(*) from rn)::text runs,
            (select count(*) from rn where state = any($1::text[]))::text active,
            (select coalesce(sum(st.completions), 0) from ${s.agentRunStats} st where st.agent_id in (select id from ag))::text completions,
            (select coalesce(sum(st.total_volume), 0) from ${s.agentRunStats} st where st.agent_id in (select id from ag))::text volume,
            (select avg(coalesce(r.score, 50)) from ag left join api.reputation r on r.agent_id = ag.id)::float8 avg`,
    params,
  );
  const r = rows[0]!;
  return {
    totalAgents: Number(r.agents),
    totalBounties: Number(r.runs),
    activeBounties: Number(r.active),
    totalCompletions: Number(r.completions),
    totalVolume: r.volume,
    averageReputation: r.avg === null ? 0 : Math.round(r.avg * 100) / 100,
  };
}

const TRENDING = 5;
const LISTS = {
  capabilities: "capabilities",
  programmingLangs: "programming_langs",
  domains: "domains",
  tools: "tools",
} as const;
export type TagList = keyof typeof LISTS;
export type Trending = Record<TagList, { name: string; count: number }[]>;

/**
 * The five most common tags per profile list, counted case-insensitively, once per agent; ties broken by name.
 * With `orgId`: the organization's agents.
 */
export async function trendingTags(deps: Pick<Deps, "pool">, orgId?: string): Promise<Trending> {
  const scope = orgId === undefined ? "" : `where p.agent_id in ${orgAgentIds("$2")}`;
  const unions = Object.entries(LISTS)
    .map(
      ([kind, column]) =>
        `select '${kind}' kind, lower(t) name, p.agent_id from api.agent_profile p cross join unnest(p.${column}) t ${scope}`,
    )
    .join(" union all ");
  const { rows } = await deps.pool.query<{ kind: TagList; name: string; n: number }>(
    `with tags as (${unions}),
     counted as (
       select kind, name, count(distinct agent_id)::int n,
              row_number() over (partition by kind order by count(distinct agent_id) desc, name) rk
         from tags group by kind, name
     )
     select kind, name, n from counted where rk <= $1 order by kind, rk`,
    orgId === undefined ? [TRENDING] : [TRENDING, orgId],
  );
  const out: Trending = { capabilities: [], programmingLangs: [], domains: [], tools: [] };
  for (const r of rows) out[r.kind].push({ name: r.name, count: r.n });
  return out;
}

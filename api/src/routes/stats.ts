// GET /api/stats: platform totals from indexed chain data and stored reputation.
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../context.ts";
import { router } from "../lib/openapi.ts";
import { errorResponses, json } from "../lib/schemas.ts";

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
 * agents not computed yet.
 */
export async function platformStats(deps: Deps): Promise<PlatformStats> {
  const s = deps.env.INDEXER_SCHEMA;
  const { rows } = await deps.pool.query<{
    agents: string;
    runs: string;
    active: string;
    completions: string;
    volume: string;
    avg: number | null;
  }>(
    `select (select count(*) from ${s}.agent)::text agents,
            (select count(*) from ${s}.run)::text runs,
            (select count(*) from ${s}.run where state = any($1::text[]))::text active,
            (select coalesce(sum(completions), 0) from ${s}.agent_run_stats)::text completions,
            (select coalesce(sum(total_volume), 0) from ${s}.agent_run_stats)::text volume,
            (select avg(coalesce(r.score, 50)) from ${s}.agent a left join api.reputation r on r.agent_id = a.id)::float8 avg`,
    [ACTIVE_RUN_STATES],
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

const statsRoute = createRoute({
  method: "get",
  path: "/api/stats",
  tags: ["reputation"],
  summary: "Platform statistics",
  responses: {
    200: json(
      z.object({
        totalAgents: z.number(),
        totalBounties: z.number(),
        activeBounties: z.number(),
        totalCompletions: z.number(),
        totalVolume: z.string(),
        averageReputation: z.number(),
      }),
      "Statistics",
    ),
    ...errorResponses(429),
  },
});

export const statsRoutes = router().openapi(statsRoute, async (c) => c.json(await platformStats(c.get("deps")), 200));

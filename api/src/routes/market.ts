// GET /api/intelligence/market (free): platform figures and the five most common profile tags per list.
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../context.ts";
import { router } from "../lib/openapi.ts";
import { errorResponses, json } from "../lib/schemas.ts";
import { platformStats } from "./stats.ts";

const TRENDING = 5;
const LISTS = {
  capabilities: "capabilities",
  programmingLangs: "programming_langs",
  domains: "domains",
  tools: "tools",
} as const;
type ListName = keyof typeof LISTS;

const entry = z.object({ name: z.string(), count: z.number() });

/** Tags counted case-insensitively, once per agent; ties broken by name. */
export async function trending(deps: Deps): Promise<Record<ListName, { name: string; count: number }[]>> {
  const unions = Object.entries(LISTS)
    .map(
      ([kind, column]) =>
        `select '${kind}' kind, lower(t) name, p.agent_id from api.agent_profile p cross join unnest(p.${column}) t`,
    )
    .join(" union all ");
  const { rows } = await deps.pool.query<{ kind: ListName; name: string; n: number }>(
    `with tags as (${unions}),
     counted as (
       select kind, name, count(distinct agent_id)::int n,
              row_number() over (partition by kind order by count(distinct agent_id) desc, name) rk
         from tags group by kind, name
     )
     select kind, name, n from counted where rk <= $1 order by kind, rk`,
    [TRENDING],
  );
  const out = { capabilities: [], programmingLangs: [], domains: [], tools: [] } as Record<
    ListName,
    { name: string; count: number }[]
  >;
  for (const r of rows) out[r.kind].push({ name: r.name, count: r.n });
  return out;
}

const marketRoute = createRoute({
  method: "get",
  path: "/api/intelligence/market",
  tags: ["intelligence"],
  summary: "Market overview (free)",
  responses: {
    200: json(
      z.object({
        stats: z.object({
          totalAgents: z.number(),
          activeBounties: z.number(),
          avgReputation: z.number(),
          totalCompletions: z.number(),
        }),
        trending: z.object({
          capabilities: z.array(entry),
          programmingLangs: z.array(entry),
          domains: z.array(entry),
          tools: z.array(entry),
        }),
      }),
      "Market",
    ),
    ...errorResponses(429),
  },
});

export const marketRoutes = router().openapi(marketRoute, async (c) => {
  const deps = c.get("deps");
  const [stats, lists] = await Promise.all([platformStats(deps), trending(deps)]);
  return c.json(
    {
      stats: {
        totalAgents: stats.totalAgents,
        activeBounties: stats.activeBounties,
        avgReputation: stats.averageReputation,
        totalCompletions: stats.totalCompletions,
      },
      trending: lists,
    },
    200,
  );
});

// GET /api/intelligence/market (free): platform figures and the five most common profile tags per list.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json } from "../../lib/schemas.ts";
import { platformStats, trendingTags } from "../../stores/stats.ts";

const entry = z.object({ name: z.string(), count: z.number() });

const marketRoute = createRoute({
  method: "get",
  path: "/market",
  tags: ["intelligence"],
  summary: "Market overview (free; with an organization key: the organization's agents)",
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
  const orgId = c.get("org")?.id;
  const [stats, lists] = await Promise.all([platformStats(deps, orgId), trendingTags(deps, orgId)]);
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

// GET /api/stats: platform totals from indexed chain data and stored reputation.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json } from "../../lib/schemas.ts";
import { platformStats } from "../../stores/stats.ts";

const statsRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["reputation"],
  summary: "Platform statistics (with an organization key: the organization's agents and runs)",
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

export const statsRoutes = router().openapi(statsRoute, async (c) =>
  c.json(await platformStats(c.get("deps"), c.get("org")?.id), 200),
);

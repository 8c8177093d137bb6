// Local chains only (mounted with the dev routes): runs deliberately unfiltered queries over every
// organization-owned table through the request's own pool, so a test can see what a query that forgets its
// organization filter reaches under the caller's scope (docs/decisions.md, "Organization isolation").
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { json } from "../../lib/schemas.ts";
import { probeOrgScope } from "../../stores/org-scope-probe.ts";

const probeRoute = createRoute({
  method: "get",
  path: "/org-scope",
  tags: ["dev"],
  summary:
    "Local chains only: the database role and organization setting of this request, and the organizations of every row an unfiltered query reaches per organization-owned table",
  responses: {
    200: json(
      z.object({
        role: z.string(),
        orgSetting: z.string().nullable(),
        tables: z.record(z.string(), z.array(z.string().nullable())),
      }),
      "What this request's queries reach",
    ),
  },
});

export const isolationProbeRoutes = router().openapi(probeRoute, async (c) => {
  return c.json(await probeOrgScope(c.get("deps")), 200);
});

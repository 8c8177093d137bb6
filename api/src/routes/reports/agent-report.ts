// The core's anonymous report (POST /api/agents/:id/report, mounted under /api/agents in app.ts): the same
// api.agent_report and category vocabulary as the signed reports of this folder (docs/decisions.md).
import { createRoute, z } from "@hono/zod-openapi";
import { REPORT_CATEGORIES } from "../../domain/report-risk.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { clientKey } from "../../lib/client-ip.ts";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit } from "../../lib/rate-limit.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { insertAnonymousReport } from "../../stores/reports.ts";
import { requireAgent } from "../../use-cases/guards.ts";
import { agentIdParam } from "../agents/schemas.ts";

/** One vocabulary for both report endpoints (see domain/report-risk.ts). */
const REPORT_REASONS = REPORT_CATEGORIES;

/** Anonymous reports per client IP. */
const REPORT_LIMITS = [{ windowSec: 3600, max: 10 }];

const reportRoute = createRoute({
  method: "post",
  path: "/{id}/report",
  tags: ["reports"],
  summary: "Flag an agent for review (anyone may report; 10 reports per hour per IP)",
  request: {
    params: agentIdParam,
    body: jsonBody(
      z.object({
        reason: z
          .string()
          .transform((v) => v.trim().toUpperCase())
          .pipe(z.enum(REPORT_REASONS)),
        details: z.string().trim().min(1).max(2000),
      }),
    ),
  },
  responses: {
    201: json(
      z.object({
        reportId: z.number(),
        agentId: z.number(),
        status: z.literal("PENDING"),
        reportCount: z.number(),
        message: z.string(),
      }),
      "Report filed",
    ),
    ...errorResponses(400, 404, 429),
  },
});

export const agentReportRoutes = router().openapi(reportRoute, async (c) => {
  const deps = c.get("deps");
  // Counted here, after validation: malformed requests use up nobody's allowance.
  await enforceRateLimit(c, "report", REPORT_LIMITS);
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  await requireAgent(deps, id);
  const r = await insertAnonymousReport(deps, {
    agentId: id,
    reason: body.reason,
    details: body.details,
    reporterIp: clientKey(c, deps.env.TRUST_PROXY),
    filedAt: await chainClock(deps).now(),
  });
  return c.json(
    {
      reportId: Number(r.id),
      agentId: id,
      status: "PENDING" as const,
      reportCount: Number(r.count),
      message: "Report received; moderators review reports before any slash.",
    },
    201,
  );
});

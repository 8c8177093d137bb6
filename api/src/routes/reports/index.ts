// Reports API (supplement): signed reports about agents, the reporter's own list, report counts, the agent's risk
// status and score, and the admin review that confirms or dismisses a report. Shares api.agent_report and the
// category vocabulary with the core's POST /api/agents/:id/report.
import { createRoute } from "@hono/zod-openapi";
import { type Address, getAddress, isAddressEqual } from "viem";
import { parseSiweMessage } from "viem/siwe";
import { requireAdmin } from "../../auth/admin.ts";
import { ADMIN_TOKEN } from "../../auth/security-schemes.ts";
import { verifySignedAction } from "../../auth/signed-action.ts";
import { REPORT_CATEGORIES } from "../../domain/report-risk.ts";
import { apiError } from "../../errors.ts";
import { clientKey } from "../../lib/client-ip.ts";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit, type Limit } from "../../lib/rate-limit.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { findReport, reportsBy, resolvePendingReport } from "../../stores/reports.ts";
import { requireAgent } from "../../use-cases/guards.ts";
import { agentRisk } from "../../use-cases/reports/agent-risk.ts";
import { createReport } from "../../use-cases/reports/create-report.ts";
import {
  agentIdParam,
  countResult,
  createReportBody,
  createReportResult,
  myReportsResult,
  reportIdParam,
  resolveBody,
  resolveResult,
  riskResult,
  signedQuery,
} from "./schemas.ts";

export { agentReportRoutes } from "./agent-report.ts";

/** Per client IP (middleware); the per-reporter limit is applied after the signature (use-cases/reports). */
export const REPORT_IP_LIMITS: Limit[] = [{ windowSec: 3600, max: 20 }];
const MINE_LIMIT = 100;

const createRoute_ = createRoute({
  method: "post",
  path: "/create",
  tags: ["reports"],
  summary: `Report an agent (SIWE-signed by the reporter: report:agent:<subjectAgentId>). Categories: ${REPORT_CATEGORIES.join(", ")}`,
  request: { body: jsonBody(createReportBody) },
  responses: {
    201: json(createReportResult, "Report filed (PENDING)"),
    ...errorResponses(400, 401, 404, 409, 429),
  },
});

const mineRoute = createRoute({
  method: "get",
  path: "/mine",
  tags: ["reports"],
  summary: `The signer's own reports, newest first (at most ${MINE_LIMIT}); SIWE-signed list-reports:reporter:<address>`,
  request: { query: signedQuery },
  responses: { 200: json(myReportsResult, "Own reports"), ...errorResponses(400, 401) },
});

const countRoute = createRoute({
  method: "get",
  path: "/agent/{agentId}/count",
  tags: ["reports"],
  summary: "How many reports an agent has, and its risk status",
  request: { params: agentIdParam },
  responses: { 200: json(countResult, "Report count"), ...errorResponses(400, 404) },
});

const statusRoute = createRoute({
  method: "get",
  path: "/agent/{agentId}/status",
  tags: ["reports"],
  summary: "An agent's risk status (ACTIVE, UNDER_REVIEW, RESTRICTED, FROZEN, BANNED) and riskScore 0..100",
  request: { params: agentIdParam },
  responses: { 200: json(riskResult, "Risk"), ...errorResponses(400, 404) },
});

const resolveRoute = createRoute({
  method: "patch",
  path: "/{reportId}",
  tags: ["reports"],
  summary: "Admin: confirm or dismiss a PENDING report (feeds the agent's risk score)",
  security: ADMIN_TOKEN,
  middleware: [requireAdmin] as const,
  request: { params: reportIdParam, body: jsonBody(resolveBody) },
  responses: { 200: json(resolveResult, "Resolved"), ...errorResponses(400, 401, 404, 409) },
});

const riskView = (r: Awaited<ReturnType<typeof agentRisk>>) => ({
  agentId: r.agentId,
  status: r.status,
  riskScore: r.riskScore,
  chainStatus: r.chainStatus,
  distinctReporters: r.distinctReporters,
  pending: r.pending,
  confirmed: r.confirmed,
});

export const reportRoutes = router()
  .openapi(createRoute_, async (c) => {
    const deps = c.get("deps");
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "report-create", REPORT_IP_LIMITS);
    const body = c.req.valid("json");
    const filed = await createReport(deps, { ...body, reporterIp: clientKey(c, deps.env.TRUST_PROXY) });
    return c.json(
      {
        reportId: filed.reportId,
        status: "PENDING" as const,
        subjectAgentId: filed.subjectAgentId,
        category: filed.category,
        createdAt: filed.createdAt.toISOString(),
        message: "Report received; an administrator reviews it before it is confirmed or dismissed.",
      },
      201,
    );
  })
  .openapi(mineRoute, async (c) => {
    const deps = c.get("deps");
    const query = c.req.valid("query");
    let claimed: Address;
    try {
      const parsed = parseSiweMessage(query.message);
      if (!parsed.address) throw new Error("no address");
      claimed = getAddress(parsed.address);
    } catch {
      throw apiError("INVALID_SIGNATURE", "not a Sign-In with Ethereum message");
    }
    const signer = await verifySignedAction(deps, query, { action: "list-reports", kind: "reporter", id: claimed });
    if (!isAddressEqual(signer, claimed)) throw apiError("INVALID_SIGNATURE", "signer mismatch");
    const { reports, total } = await reportsBy(deps, signer, MINE_LIMIT);
    return c.json({ reporter: getAddress(signer), total, reports }, 200);
  })
  .openapi(countRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId } = c.req.valid("param");
    const agent = await requireAgent(deps, agentId);
    const risk = await agentRisk(deps, agent);
    return c.json(
      {
        agentId,
        reportCount: risk.total,
        status: risk.status,
        pending: risk.pending,
        confirmed: risk.confirmed,
        dismissed: risk.dismissed,
      },
      200,
    );
  })
  .openapi(statusRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId } = c.req.valid("param");
    const agent = await requireAgent(deps, agentId);
    return c.json(riskView(await agentRisk(deps, agent)), 200);
  })
  .openapi(resolveRoute, async (c) => {
    const deps = c.get("deps");
    const { reportId } = c.req.valid("param");
    const { status, note } = c.req.valid("json");
    const report = await resolvePendingReport(deps, reportId, status, note ?? null);
    if (!report) {
      const existing = await findReport(deps, reportId);
      if (!existing) throw apiError("REPORT_NOT_FOUND", `report ${reportId} does not exist`);
      throw apiError("REPORT_ALREADY_RESOLVED", `report ${reportId} is already ${existing.status}`);
    }
    const agent = await requireAgent(deps, report.subjectAgentId);
    const risk = riskView(await agentRisk(deps, agent));
    return c.json(
      {
        report,
        agent: risk,
        message: `Report ${reportId} ${status}; agent ${agent.id} is ${risk.status} (riskScore ${risk.riskScore}).`,
      },
      200,
    );
  });

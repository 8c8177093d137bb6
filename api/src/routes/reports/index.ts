// Reports API (supplement): signed reports about agents, the reporter's own list, report counts, the agent's risk
// status and score, and the admin review that confirms or dismisses a report. Shares api.agent_report and the
// category vocabulary with the core's POST /api/agents/:id/report.
import { createRoute } from "@hono/zod-openapi";
import { type Address, getAddress, isAddressEqual } from "viem";
import { parseSiweMessage } from "viem/siwe";
import type { Deps } from "../../context.ts";
import { parseCategory, REPORT_CATEGORIES } from "../../domain/report-risk.ts";
import { ApiError, errors } from "../../errors.ts";
import { requireAdmin } from "../../lib/admin.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { clientIp } from "../../lib/client-ip.ts";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit, type Limit } from "../../lib/rate-limit.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import { findAgent } from "../agents/repository.ts";
import { findRun, type RunRecord } from "../runs/repository.ts";
import { agentRisk, findReport, REPORT_COLUMNS, toReport } from "./repository.ts";
import {
  agentIdParam,
  countResult,
  createReportBody,
  createReportResult,
  EVIDENCE_MAX,
  EVIDENCE_MIN,
  myReportsResult,
  reportIdParam,
  resolveBody,
  resolveResult,
  riskResult,
  signedQuery,
} from "./schemas.ts";

/** Per client IP (middleware) and per verified reporter address (after the signature). */
export const REPORT_IP_LIMITS: Limit[] = [{ windowSec: 3600, max: 20 }];
export const REPORTER_LIMITS: Limit[] = [
  { windowSec: 3600, max: 10 },
  { windowSec: 24 * 3600, max: 30 },
];
const MINE_LIMIT = 100;

const same = (a: string | null | undefined, b: string) => !!a && a.toLowerCase() === b.toLowerCase();

/** Whether the run involves the agent: its current or a failed/past claimer, or the poster is the agent's owner/wallet. */
async function bountyInvolves(deps: Deps, run: RunRecord, agent: { id: number; owner: string; wallet: string }) {
  if (run.agentId === agent.id || run.failedAgentId === agent.id) return true;
  if (same(agent.owner, run.poster) || same(agent.wallet, run.poster)) return true;
  const r = await deps.pool.query("select 1 from api.run_action where run_id = $1 and agent_id = $2 limit 1", [
    run.id,
    agent.id,
  ]);
  return (r.rowCount ?? 0) > 0;
}

async function limitReporter(deps: Deps, reporter: string) {
  const decision = await deps.rateLimiter.hit(`report-reporter:${reporter.toLowerCase()}`, REPORTER_LIMITS);
  if (!decision.allowed) {
    throw new ApiError(429, "RATE_LIMITED", `too many reports from ${reporter}: ${decision.limit} allowed per window`);
  }
}

const createRoute_ = createRoute({
  method: "post",
  path: "/api/reports/create",
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
  path: "/api/reports/mine",
  tags: ["reports"],
  summary: `The signer's own reports, newest first (at most ${MINE_LIMIT}); SIWE-signed list-reports:reporter:<address>`,
  request: { query: signedQuery },
  responses: { 200: json(myReportsResult, "Own reports"), ...errorResponses(400, 401) },
});

const countRoute = createRoute({
  method: "get",
  path: "/api/reports/agent/{agentId}/count",
  tags: ["reports"],
  summary: "How many reports an agent has, and its risk status",
  request: { params: agentIdParam },
  responses: { 200: json(countResult, "Report count"), ...errorResponses(400, 404) },
});

const statusRoute = createRoute({
  method: "get",
  path: "/api/reports/agent/{agentId}/status",
  tags: ["reports"],
  summary: "An agent's risk status (ACTIVE, UNDER_REVIEW, RESTRICTED, FROZEN, BANNED) and riskScore 0..100",
  request: { params: agentIdParam },
  responses: { 200: json(riskResult, "Risk"), ...errorResponses(400, 404) },
});

const resolveRoute = createRoute({
  method: "patch",
  path: "/api/reports/{reportId}",
  tags: ["reports"],
  summary: "Admin: confirm or dismiss a PENDING report (feeds the agent's risk score)",
  security: [{ adminToken: [] }],
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
    const category = parseCategory(body.category);
    if (!category) {
      throw new ApiError(400, "INVALID_CATEGORY", `category must be one of ${REPORT_CATEGORIES.join(", ")}`);
    }
    const evidence = body.evidence.trim();
    if (evidence.length < EVIDENCE_MIN || evidence.length > EVIDENCE_MAX) {
      throw new ApiError(
        400,
        "INVALID_EVIDENCE",
        `evidence must be ${EVIDENCE_MIN} to ${EVIDENCE_MAX} characters (got ${evidence.length})`,
      );
    }
    const agent = await findAgent(deps, body.subjectAgentId);
    if (!agent) throw errors.agentNotFound(body.subjectAgentId);
    if (body.bountyId !== undefined) {
      const run = await findRun(deps, body.bountyId);
      if (!run) throw errors.notFound("BOUNTY_NOT_FOUND", `bounty ${body.bountyId} does not exist`);
      if (!(await bountyInvolves(deps, run, agent))) {
        throw new ApiError(
          400,
          "BOUNTY_MISMATCH",
          `bounty ${body.bountyId} does not involve agent ${agent.id} (neither its poster nor its agent)`,
        );
      }
    }
    const signer = await verifySignedAction(deps, body, { action: "report", kind: "agent", id: agent.id });
    await limitReporter(deps, signer);
    if (same(agent.owner, signer) || same(agent.wallet, signer)) {
      throw new ApiError(400, "SELF_REPORT", `${signer} is agent ${agent.id}'s owner or wallet and cannot report it`);
    }
    const filedAt = await chainClock(deps).now();
    const inserted = await deps.pool.query<{ id: string; created_at: Date }>(
      `insert into api.agent_report (agent_id, reason, details, reporter_ip, reporter_address, bounty_id, filed_at)
       values ($1, $2, $3, $4, $5, $6, $7)
       on conflict (reporter_address, agent_id, reason) where status = 'PENDING' and reporter_address is not null
       do nothing
       returning id::text, created_at`,
      [
        agent.id,
        category,
        evidence,
        clientIp(c, deps.env.TRUST_PROXY),
        signer.toLowerCase(),
        body.bountyId ?? null,
        filedAt.toString(),
      ],
    );
    const row = inserted.rows[0];
    if (!row) {
      const open = await deps.pool.query<{ id: string }>(
        `select id::text from api.agent_report
          where reporter_address = $1 and agent_id = $2 and reason = $3 and status = 'PENDING'`,
        [signer.toLowerCase(), agent.id, category],
      );
      throw errors.conflict(
        "DUPLICATE_REPORT",
        `you already have an open ${category} report${open.rows[0] ? ` (${open.rows[0].id})` : ""} about agent ${agent.id}`,
      );
    }
    return c.json(
      {
        reportId: Number(row.id),
        status: "PENDING" as const,
        subjectAgentId: agent.id,
        category,
        createdAt: row.created_at.toISOString(),
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
      throw new ApiError(401, "INVALID_SIGNATURE", "not a Sign-In with Ethereum message");
    }
    const signer = await verifySignedAction(deps, query, { action: "list-reports", kind: "reporter", id: claimed });
    if (!isAddressEqual(signer, claimed)) throw new ApiError(401, "INVALID_SIGNATURE", "signer mismatch");
    const reporter = signer.toLowerCase();
    const [rows, total] = await Promise.all([
      deps.pool.query(
        `select ${REPORT_COLUMNS} from api.agent_report where reporter_address = $1 order by id desc limit $2`,
        [reporter, MINE_LIMIT],
      ),
      deps.pool.query<{ n: number }>("select count(*)::int n from api.agent_report where reporter_address = $1", [
        reporter,
      ]),
    ]);
    return c.json({ reporter: getAddress(signer), total: total.rows[0]!.n, reports: rows.rows.map(toReport) }, 200);
  })
  .openapi(countRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId } = c.req.valid("param");
    const agent = await findAgent(deps, agentId);
    if (!agent) throw errors.agentNotFound(agentId);
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
    const agent = await findAgent(deps, agentId);
    if (!agent) throw errors.agentNotFound(agentId);
    return c.json(riskView(await agentRisk(deps, agent)), 200);
  })
  .openapi(resolveRoute, async (c) => {
    const deps = c.get("deps");
    const { reportId } = c.req.valid("param");
    const { status, note } = c.req.valid("json");
    const updated = await deps.pool.query(
      `update api.agent_report set status = $2, resolved_at = now(), resolved_by = 'admin', resolution_note = $3
        where id = $1 and status = 'PENDING' returning ${REPORT_COLUMNS}`,
      [reportId, status, note ?? null],
    );
    if (!updated.rows[0]) {
      const existing = await findReport(deps, reportId);
      if (!existing) throw errors.notFound("REPORT_NOT_FOUND", `report ${reportId} does not exist`);
      throw errors.conflict("REPORT_ALREADY_RESOLVED", `report ${reportId} is already ${existing.status}`);
    }
    const report = toReport(updated.rows[0]);
    const agent = await findAgent(deps, report.subjectAgentId);
    if (!agent) throw errors.agentNotFound(report.subjectAgentId);
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

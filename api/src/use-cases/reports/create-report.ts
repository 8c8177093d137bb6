// A signed report about an agent (supplement, Reports API): one open report per (reporter, agent, category),
// never about an agent the reporter speaks for, optionally about a bounty that involves the agent.
import type { Deps } from "../../context.ts";
import {
  EVIDENCE_MAX,
  EVIDENCE_MIN,
  parseCategory,
  REPORT_CATEGORIES,
  type ReportCategory,
} from "../../domain/report-risk.ts";
import { apiError } from "../../errors.ts";
import type { Limit } from "../../lib/rate-limit.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import { insertReport, openReportId } from "../../stores/reports.ts";
import { agentActedOnRun, findRun, type RunRecord } from "../../stores/runs.ts";
import { requireAgent } from "../guards.ts";

/** Per verified reporter address (after the signature); the per-IP limit is the route's. */
export const REPORTER_LIMITS: Limit[] = [
  { windowSec: 3600, max: 10 },
  { windowSec: 24 * 3600, max: 30 },
];

export interface CreateReportParameters {
  subjectAgentId: number;
  category: string;
  evidence: string;
  bountyId?: number;
  message: string;
  signature: string;
  reporterIp: string;
}

export interface CreateReportReturnType {
  reportId: number;
  subjectAgentId: number;
  category: ReportCategory;
  createdAt: Date;
}

const same = (a: string | null | undefined, b: string) => !!a && a.toLowerCase() === b.toLowerCase();

/** Whether the run involves the agent: its current or a failed/past claimer, or the poster is the agent's owner/wallet. */
async function bountyInvolves(deps: Deps, run: RunRecord, agent: { id: number; owner: string; wallet: string }) {
  if (run.agentId === agent.id || run.failedAgentId === agent.id) return true;
  if (same(agent.owner, run.poster) || same(agent.wallet, run.poster)) return true;
  return agentActedOnRun(deps, run.id, agent.id);
}

export async function createReport(deps: Deps, p: CreateReportParameters): Promise<CreateReportReturnType> {
  const category = parseCategory(p.category);
  if (!category) throw apiError("INVALID_CATEGORY", `category must be one of ${REPORT_CATEGORIES.join(", ")}`);
  const evidence = p.evidence.trim();
  if (evidence.length < EVIDENCE_MIN || evidence.length > EVIDENCE_MAX) {
    throw apiError(
      "INVALID_EVIDENCE",
      `evidence must be ${EVIDENCE_MIN} to ${EVIDENCE_MAX} characters (got ${evidence.length})`,
    );
  }
  const agent = await requireAgent(deps, p.subjectAgentId);
  if (p.bountyId !== undefined) {
    const run = await findRun(deps, p.bountyId);
    if (!run) throw apiError("BOUNTY_NOT_FOUND", `bounty ${p.bountyId} does not exist`);
    if (!(await bountyInvolves(deps, run, agent))) {
      throw apiError(
        "BOUNTY_MISMATCH",
        `bounty ${p.bountyId} does not involve agent ${agent.id} (neither its poster nor its agent)`,
      );
    }
  }
  const signer = await verifySignedAction(deps, p, { action: "report", kind: "agent", id: agent.id });
  const decision = await deps.rateLimiter.hit(`report-reporter:${signer.toLowerCase()}`, REPORTER_LIMITS);
  if (!decision.allowed) {
    throw apiError("RATE_LIMITED", `too many reports from ${signer}: ${decision.limit} allowed per window`);
  }
  if (same(agent.owner, signer) || same(agent.wallet, signer)) {
    throw apiError("SELF_REPORT", `${signer} is agent ${agent.id}'s owner or wallet and cannot report it`);
  }
  const row = await insertReport(deps, {
    agentId: agent.id,
    category,
    evidence,
    reporterIp: p.reporterIp,
    reporter: signer,
    bountyId: p.bountyId ?? null,
    filedAt: await deps.clock.now(),
  });
  if (!row) {
    const open = await openReportId(deps, signer, agent.id, category);
    throw apiError(
      "DUPLICATE_REPORT",
      `you already have an open ${category} report${open ? ` (${open})` : ""} about agent ${agent.id}`,
    );
  }
  return { reportId: Number(row.id), subjectAgentId: agent.id, category, createdAt: row.created_at };
}

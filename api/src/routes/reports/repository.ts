// Reads and writes of api.agent_report for the Reports API, and the agent risk assembled from them.
import type { Deps } from "../../context.ts";
import { MIN_STAKE } from "../../domain/agent-status.ts";
import {
  computeRisk,
  type ReportCategory,
  type ReporterKind,
  type ReportStatus,
  type RiskReport,
} from "../../domain/report-risk.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { type AgentRecord, statusOf } from "../agents/repository.ts";

interface ReportRow {
  id: string;
  agent_id: string;
  reason: string;
  details: string;
  bounty_id: string | null;
  status: string;
  created_at: Date;
  resolved_at: Date | null;
}

export const REPORT_COLUMNS =
  "id::text, agent_id::text, reason, details, bounty_id::text, status, created_at, resolved_at";

export function toReport(row: ReportRow) {
  return {
    reportId: Number(row.id),
    subjectAgentId: Number(row.agent_id),
    category: row.reason as ReportCategory,
    evidence: row.details,
    bountyId: row.bounty_id === null ? null : Number(row.bounty_id),
    status: row.status as ReportStatus,
    createdAt: row.created_at.toISOString(),
    resolvedAt: row.resolved_at?.toISOString() ?? null,
  };
}

export type ReportView = ReturnType<typeof toReport>;

export async function findReport(deps: Deps, id: number): Promise<ReportView | undefined> {
  const r = await deps.pool.query<ReportRow>(`select ${REPORT_COLUMNS} from api.agent_report where id = $1`, [id]);
  return r.rows[0] ? toReport(r.rows[0]) : undefined;
}

/**
 * The reports behind an agent's risk, each with its reporter's identity and weight class: STAKED when the signer
 * is the owner or wallet of an agent with at least the minimum active stake (read from the indexed chain), SIGNED
 * for any other signer, ANONYMOUS for the core endpoint's IP-only reports (grouped per IP).
 */
async function riskInputs(deps: Deps, agentId: number): Promise<RiskReport[]> {
  const schema = deps.env.INDEXER_SCHEMA;
  const { rows } = await deps.pool.query<{
    reason: string;
    status: string;
    reporter: string;
    kind: string;
    filed_at: string;
  }>(
    `with reporters as (
       select distinct reporter_address addr from api.agent_report where agent_id = $1 and reporter_address is not null
     ),
     staked as (
       select r.addr from reporters r
        where exists (
          select 1 from ${schema}.agent a join ${schema}.stake s on s.agent_id = a.id
           where (lower(a.owner) = r.addr or lower(a.wallet) = r.addr) and s.amount - s.pending_withdrawal >= $2
             and a.id <> $1)
     )
     select ar.reason, ar.status,
            coalesce(ar.reporter_address, 'ip:' || ar.reporter_ip) reporter,
            case when ar.reporter_address is null then 'ANONYMOUS'
                 when ar.reporter_address in (select addr from staked) then 'STAKED' else 'SIGNED' end kind,
            coalesce(ar.filed_at, extract(epoch from ar.created_at)::bigint)::text filed_at
       from api.agent_report ar where ar.agent_id = $1`,
    [agentId, MIN_STAKE.toString()],
  );
  return rows.map((r) => ({
    category: r.reason as ReportCategory,
    status: r.status as ReportStatus,
    reporter: r.reporter,
    reporterKind: r.kind as ReporterKind,
    filedAt: Number(r.filed_at),
  }));
}

export async function agentRisk(deps: Deps, agent: AgentRecord) {
  const now = await chainClock(deps).now();
  const chainStatus = statusOf(agent, now);
  const reports = await riskInputs(deps, agent.id);
  const risk = computeRisk(reports, Number(now), chainStatus);
  return {
    agentId: agent.id,
    status: risk.status,
    riskScore: risk.riskScore,
    chainStatus,
    distinctReporters: new Set(reports.filter((r) => r.status !== "DISMISSED").map((r) => r.reporter)).size,
    pending: reports.filter((r) => r.status === "PENDING").length,
    confirmed: risk.confirmed,
    dismissed: reports.filter((r) => r.status === "DISMISSED").length,
    total: reports.length,
  };
}

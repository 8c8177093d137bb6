// Reports about agents (api.agent_report): the signed Reports API and the core's anonymous per-IP reports share it.
import type { Deps } from "../context.ts";
import type { ReportCategory, ReporterKind, ReportStatus, RiskReport } from "../domain/report-risk.ts";

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

const REPORT_COLUMNS = "id::text, agent_id::text, reason, details, bounty_id::text, status, created_at, resolved_at";

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
/** `minStake`: the vault's current minimum (a reporter staking at least that counts as STAKED). */
export async function riskInputs(deps: Deps, agentId: number, minStake: bigint): Promise<RiskReport[]> {
  const schema = deps.views.names;
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
          select 1 from ${schema.agent} a join ${schema.stake} s on s.agent_id = a.id
           where (lower(a.owner) = r.addr or lower(a.wallet) = r.addr) and s.amount - s.pending_withdrawal >= $2
             and a.id <> $1)
     )
     select ar.reason, ar.status,
            coalesce(ar.reporter_address, 'ip:' || ar.reporter_ip) reporter,
            case when ar.reporter_address is null then 'ANONYMOUS'
                 when ar.reporter_address in (select addr from staked) then 'STAKED' else 'SIGNED' end kind,
            coalesce(ar.filed_at, extract(epoch from ar.created_at)::bigint)::text filed_at
       from api.agent_report ar where ar.agent_id = $1`,
    [agentId, minStake.toString()],
  );
  return rows.map((r) => ({
    category: r.reason as ReportCategory,
    status: r.status as ReportStatus,
    reporter: r.reporter,
    reporterKind: r.kind as ReporterKind,
    filedAt: Number(r.filed_at),
  }));
}

export interface NewReport {
  agentId: number;
  category: string;
  evidence: string;
  reporterIp: string;
  reporter: string;
  bountyId: number | null;
  /** chain time, unix seconds */
  filedAt: bigint;
}

/** Files a signed report; undefined when the reporter already has an open one of that category about the agent. */
export async function insertReport(
  deps: Pick<Deps, "pool">,
  r: NewReport,
): Promise<{ id: string; created_at: Date } | undefined> {
  const inserted = await deps.pool.query<{ id: string; created_at: Date }>(
    `insert into api.agent_report (agent_id, reason, details, reporter_ip, reporter_address, bounty_id, filed_at)
     values ($1, $2, $3, $4, $5, $6, $7)
     on conflict (reporter_address, agent_id, reason) where status = 'PENDING' and reporter_address is not null
     do nothing
     returning id::text, created_at`,
    [r.agentId, r.category, r.evidence, r.reporterIp, r.reporter.toLowerCase(), r.bountyId, r.filedAt.toString()],
  );
  return inserted.rows[0];
}

/** The id of the reporter's open report of `category` about the agent. */
export async function openReportId(deps: Pick<Deps, "pool">, reporter: string, agentId: number, category: string) {
  const open = await deps.pool.query<{ id: string }>(
    `select id::text from api.agent_report
      where reporter_address = $1 and agent_id = $2 and reason = $3 and status = 'PENDING'`,
    [reporter.toLowerCase(), agentId, category],
  );
  return open.rows[0]?.id;
}

/** The reporter's latest `limit` reports and how many there are. */
export async function reportsBy(deps: Pick<Deps, "pool">, reporter: string, limit: number) {
  const [rows, total] = await Promise.all([
    deps.pool.query<ReportRow>(
      `select ${REPORT_COLUMNS} from api.agent_report where reporter_address = $1 order by id desc limit $2`,
      [reporter.toLowerCase(), limit],
    ),
    deps.pool.query<{ n: number }>("select count(*)::int n from api.agent_report where reporter_address = $1", [
      reporter.toLowerCase(),
    ]),
  ]);
  return { reports: rows.rows.map(toReport), total: total.rows[0]!.n };
}

/** Confirms or dismisses a PENDING report; undefined when it is unknown or no longer pending. */
export async function resolvePendingReport(
  deps: Pick<Deps, "pool">,
  id: number,
  status: "CONFIRMED" | "DISMISSED",
  note: string | null,
): Promise<ReportView | undefined> {
  const updated = await deps.pool.query<ReportRow>(
    `update api.agent_report set status = $2, resolved_at = now(), resolved_by = 'admin', resolution_note = $3
      where id = $1 and status = 'PENDING' returning ${REPORT_COLUMNS}`,
    [id, status, note],
  );
  return updated.rows[0] ? toReport(updated.rows[0]) : undefined;
}

/** The core's anonymous report (per client IP); returns its id and the agent's report count including it. */
export async function insertAnonymousReport(
  deps: Pick<Deps, "pool">,
  r: { agentId: number; reason: string; details: string; reporterIp: string; filedAt: bigint },
): Promise<{ id: string; count: string }> {
  const { rows } = await deps.pool.query<{ id: string; count: string }>(
    `with inserted as (
       insert into api.agent_report (agent_id, reason, details, reporter_ip, filed_at) values ($1, $2, $3, $4, $5) returning id
     ) select (select id from inserted)::text id, (select count(*) + 1 from api.agent_report where agent_id = $1)::text count`,
    [r.agentId, r.reason, r.details, r.reporterIp, r.filedAt.toString()],
  );
  return rows[0]!;
}

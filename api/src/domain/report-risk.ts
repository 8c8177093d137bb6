// The report vocabulary and the agent risk formula (pure, unit tested). Reports from POST /api/agents/:id/report
// (anonymous, per IP) and POST /api/reports/create (signed by a reporter address) share one table and this code.

export const REPORT_CATEGORIES = ["SPAM", "FRAUD", "MALICIOUS", "IMPERSONATION", "NON_DELIVERY", "OTHER"] as const;
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];

export const REPORT_STATUSES = ["PENDING", "CONFIRMED", "DISMISSED"] as const;
export type ReportStatus = (typeof REPORT_STATUSES)[number];

export const RISK_STATUSES = ["ACTIVE", "UNDER_REVIEW", "RESTRICTED", "FROZEN", "BANNED"] as const;
export type RiskStatus = (typeof RISK_STATUSES)[number];

/** Case-insensitive category parsing; undefined for anything outside the vocabulary. */
export function parseCategory(value: string): ReportCategory | undefined {
  const v = value.trim().toUpperCase();
  return (REPORT_CATEGORIES as readonly string[]).includes(v) ? (v as ReportCategory) : undefined;
}

/** Severity of each category. */
export const CATEGORY_WEIGHT: Record<ReportCategory, number> = {
  FRAUD: 3,
  MALICIOUS: 3,
  IMPERSONATION: 2,
  NON_DELIVERY: 2,
  SPAM: 1,
  OTHER: 1,
};

/** A confirmed report counts 4x a pending one; a dismissed one counts nothing. */
export const STATUS_FACTOR: Record<ReportStatus, number> = { PENDING: 1, CONFIRMED: 4, DISMISSED: 0 };

/** Half-life of a report's weight, by status (seconds of chain time since filing). */
export const HALF_LIFE_SECONDS: Record<ReportStatus, number> = {
  PENDING: 30 * 24 * 3600,
  CONFIRMED: 180 * 24 * 3600,
  DISMISSED: 30 * 24 * 3600,
};

/** Who stands behind a report: a signer whose agent holds at least the minimum stake, any signer, or an IP only. */
export type ReporterKind = "STAKED" | "SIGNED" | "ANONYMOUS";
export const REPORTER_FACTOR: Record<ReporterKind, number> = { STAKED: 2, SIGNED: 1, ANONYMOUS: 0.5 };

/** riskScore = round(100 * (1 - exp(-total / SCALE))). */
export const RISK_SCALE = 10;
export const UNDER_REVIEW_AT = 25;
export const RESTRICTED_AT = 60;

export interface RiskReport {
  category: ReportCategory;
  status: ReportStatus;
  /** Distinct reporter identity: the signer's address, or "ip:<ip>" for anonymous reports. */
  reporter: string;
  reporterKind: ReporterKind;
  /** Chain time (unix seconds) when filed. */
  filedAt: number;
}

export interface RiskResult {
  riskScore: number;
  status: RiskStatus;
  /** Sum of the reporters' contributions before squashing (for diagnostics). */
  weight: number;
  confirmed: number;
}

/** The weight of one report at chain time `now`. */
export function reportWeight(r: RiskReport, now: number): number {
  const age = Math.max(0, now - r.filedAt);
  const decay = 0.5 ** (age / HALF_LIFE_SECONDS[r.status]);
  return CATEGORY_WEIGHT[r.category] * STATUS_FACTOR[r.status] * REPORTER_FACTOR[r.reporterKind] * decay;
}

/**
 * Risk of an agent from its reports and its chain-derived status (deterministic):
 * - each report weighs category x status x reporter x recency (see the constants above);
 * - each distinct reporter contributes only its heaviest report, so one reporter filing many reports (or every
 *   category) cannot pile up risk;
 * - riskScore = round(100 * (1 - exp(-sum / 10))), 0..100;
 * - status: BANNED or FROZEN when the chain says so; else RESTRICTED when riskScore >= 60 and at least one report
 *   is CONFIRMED (unreviewed accusations alone never restrict); else UNDER_REVIEW when riskScore >= 25;
 *   else ACTIVE.
 */
export function computeRisk(reports: readonly RiskReport[], now: number, chainStatus?: string): RiskResult {
  const perReporter = new Map<string, number>();
  let confirmed = 0;
  for (const r of reports) {
    if (r.status === "CONFIRMED") confirmed++;
    const w = reportWeight(r, now);
    perReporter.set(r.reporter, Math.max(perReporter.get(r.reporter) ?? 0, w));
  }
  let weight = 0;
  for (const w of perReporter.values()) weight += w;
  const riskScore = Math.round(100 * (1 - Math.exp(-weight / RISK_SCALE)));
  let status: RiskStatus;
  if (chainStatus === "BANNED" || chainStatus === "FROZEN") status = chainStatus;
  else if (riskScore >= RESTRICTED_AT && confirmed > 0) status = "RESTRICTED";
  else if (riskScore >= UNDER_REVIEW_AT) status = "UNDER_REVIEW";
  else status = "ACTIVE";
  return { riskScore, status, weight, confirmed };
}

/** Length bounds of a report's evidence, after trimming. */
export const EVIDENCE_MIN = 10;
export const EVIDENCE_MAX = 4000;

import { z } from "@hono/zod-openapi";
import type pg from "pg";
import type { Deps } from "../../context.ts";

export type VerificationType = "domain" | "stake" | "skill";
export type VerificationStatus = "PENDING" | "VERIFIED" | "FAILED" | "EXPIRED";

export interface VerificationRow {
  id: string;
  agent_id: string;
  type: VerificationType;
  status: VerificationStatus;
  domain: string | null;
  token: string | null;
  min_stake_amount: string | null;
  actual_balance: string | null;
  skill_name: string | null;
  score: number | null;
  badge: string | null;
  message: string | null;
  created_at: Date;
  verified_at: Date | null;
  expires_at: Date | null;
  last_checked_at: Date | null;
}

export const COLUMNS = `id::text, agent_id::text, type, status, domain, token, min_stake_amount::text,
  actual_balance::text, skill_name, score, badge, message, created_at, verified_at, expires_at, last_checked_at`;

export const verificationSchema = z
  .object({
    id: z.number(),
    agentId: z.number(),
    type: z.enum(["domain", "stake", "skill"]),
    status: z.enum(["PENDING", "VERIFIED", "FAILED", "EXPIRED"]),
    domain: z.string().optional(),
    dnsRecord: z.string().optional(),
    minStakeAmount: z.string().optional(),
    actualBalance: z.string().optional(),
    skillName: z.string().optional(),
    score: z.number().optional(),
    badge: z.string().optional(),
    message: z.string().optional(),
    createdAt: z.string(),
    verifiedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
  })
  .openapi("Verification");
export type VerificationView = z.infer<typeof verificationSchema>;

export const dnsRecordFor = (token: string) => `hub-verify=${token}`;

/** Past its expiresAt a VERIFIED (or PENDING) record reads as EXPIRED even before the expiry job flips it. */
export function effectiveStatus(row: VerificationRow, nowSeconds: bigint): VerificationStatus {
  if (
    (row.status === "VERIFIED" || row.status === "PENDING") &&
    row.expires_at &&
    BigInt(Math.floor(row.expires_at.getTime() / 1000)) <= nowSeconds
  ) {
    return "EXPIRED";
  }
  return row.status;
}

export function toView(row: VerificationRow, nowSeconds: bigint): VerificationView {
  const status = effectiveStatus(row, nowSeconds);
  const v: VerificationView = {
    id: Number(row.id),
    agentId: Number(row.agent_id),
    type: row.type,
    status,
    createdAt: row.created_at.toISOString(),
    verifiedAt: row.verified_at?.toISOString() ?? null,
    expiresAt: row.expires_at?.toISOString() ?? null,
  };
  if (row.type === "domain") {
    v.domain = row.domain ?? undefined;
    v.dnsRecord = row.token ? dnsRecordFor(row.token) : undefined;
  }
  if (row.type === "stake") {
    v.minStakeAmount = row.min_stake_amount ?? undefined;
    if (row.actual_balance !== null) v.actualBalance = row.actual_balance;
  }
  if (row.type === "skill") {
    v.skillName = row.skill_name ?? undefined;
    if (row.score !== null) v.score = row.score;
  }
  if (row.badge && (status === "VERIFIED" || status === "EXPIRED")) v.badge = row.badge;
  if (row.message) v.message = row.message;
  return v;
}

export async function findVerification(
  db: Pick<pg.Pool, "query">,
  id: number,
  forUpdate = false,
): Promise<VerificationRow | undefined> {
  const r = await db.query<VerificationRow>(
    `select ${COLUMNS} from api.verification where id = $1${forUpdate ? " for update" : ""}`,
    [id],
  );
  return r.rows[0];
}

export async function agentFacts(
  deps: Deps,
  agentId: number,
): Promise<{ wallet: `0x${string}`; owner: `0x${string}`; registeredAt: bigint } | undefined> {
  const r = await deps.pool.query<{ wallet: `0x${string}`; owner: `0x${string}`; registered_at: string }>(
    `select wallet, owner, registered_at::text from ${deps.env.INDEXER_SCHEMA}.agent where id = $1`,
    [agentId],
  );
  const row = r.rows[0];
  return row ? { wallet: row.wallet, owner: row.owner, registeredAt: BigInt(row.registered_at) } : undefined;
}

/** Adds calendar months in UTC (1 year = 12, stake validity 6, skill validity 24). */
export function addMonths(seconds: bigint, months: number): Date {
  const d = new Date(Number(seconds) * 1000);
  d.setUTCMonth(d.getUTCMonth() + months);
  return d;
}

export const isoAt = (seconds: bigint) => new Date(Number(seconds) * 1000).toISOString();

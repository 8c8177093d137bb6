import { z } from "@hono/zod-openapi";
import type { VerificationRow, VerificationStatus } from "../../stores/verifications.ts";

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

// A verification as the API shows it: the status as of chain time (past its expiry a record reads EXPIRED even
// before the expiry job flips it) and only the fields of its type.
import type { VerificationRow, VerificationStatus, VerificationType } from "../../stores/verifications.ts";

export interface VerificationView {
  id: number;
  agentId: number;
  type: VerificationType;
  status: VerificationStatus;
  domain?: string;
  dnsRecord?: string;
  minStakeAmount?: string;
  actualBalance?: string;
  skillName?: string;
  score?: number;
  badge?: string;
  message?: string;
  createdAt: string;
  verifiedAt: string | null;
  expiresAt: string | null;
}

/** The TXT value a domain verification asks for at _hub.<domain>. */
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

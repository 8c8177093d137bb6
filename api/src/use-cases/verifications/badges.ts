// What the domain and stake verifications share: how long a request can be checked, which records can still be
// checked, and what a granted (or renewed) badge sets off.
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { recomputeSoon } from "../../stores/reputation-recompute.ts";
import { findVerification, type VerificationRow } from "../../stores/verifications.ts";
import { emitOrgEvent } from "../../stores/webhook-outbox.ts";
import { effectiveStatus, type VerificationView } from "./verification-view.ts";

/** How long a PENDING domain or stake request can be verified (DNS propagation may take up to 48 hours). */
export const CHALLENGE_SECONDS = 7n * 86_400n;

export const verificationNotFound = (id: number) =>
  apiError("VERIFICATION_NOT_FOUND", `verification ${id} does not exist`);

/** Verification `id` of `type`, still checkable at chain time `now` (neither expired nor failed). */
export async function usableVerification(
  deps: Deps,
  id: number,
  type: VerificationRow["type"],
): Promise<{ row: VerificationRow; now: bigint }> {
  const row = await findVerification(deps.pool, id);
  if (!row) throw verificationNotFound(id);
  const now = await deps.clock.now();
  if (row.type !== type) {
    const use = row.type === "stake" ? "verify-stake" : row.type === "domain" ? "verify" : "a new skill submission";
    throw apiError("WRONG_VERIFICATION_TYPE", `verification ${row.id} is a ${row.type} verification; use ${use}`);
  }
  if (effectiveStatus(row, now) === "EXPIRED") {
    throw apiError("VERIFICATION_EXPIRED", `verification ${row.id} has expired; request a new one`);
  }
  if (row.status === "FAILED") {
    throw apiError("VERIFICATION_FAILED", `verification ${row.id} failed; request a new one`);
  }
  return { row, now };
}

/**
 * A badge granted or renewed: the agent's reputation is recomputed soon, and an organization agent's organization
 * gets "verification.completed" (once per grant: id + validity).
 */
export async function badgeGranted(deps: Deps, v: VerificationView): Promise<void> {
  await recomputeSoon(deps, [v.agentId], "verification");
  await emitOrgEvent(
    deps,
    "verification.completed",
    v.agentId,
    {
      verificationId: v.id,
      agentId: v.agentId,
      type: v.type,
      status: v.status,
      badge: v.badge ?? null,
      ...(v.domain ? { domain: v.domain } : {}),
      ...(v.skillName ? { skillName: v.skillName, score: v.score ?? null } : {}),
    },
    `verification.completed:${v.id}:${v.expiresAt ?? ""}`,
  );
}

// Bounded storage (the prune job): rows whose purpose has ended are deleted on a schedule, in small batches (no long locks).
// What stays for good: spec-scheme payment rows (their nonce is the only replay protection, the signed Payment has
// no expiry; bench/payment-replay.ts measures their cost), attestations, verifications, reports and everything
// that is history. Retention periods: docs/decisions.md ("Bounded storage").
import type { Deps } from "../context.ts";

const BATCH = 5_000;

/** Deletes at most BATCH rows of `table` matching `where` per statement (the job repeats until none is left). */
const batchDelete = (table: string, where: string) =>
  `delete from api.${table} where ctid in (select ctid from api.${table} where ${where} limit ${BATCH})`;

const RULES: { name: string; sql: string }[] = [
  // SIWE nonces live 10 minutes; a used or expired one can never verify again (messages expire within 1 hour).
  { name: "auth_nonce", sql: batchDelete("auth_nonce", "expires_at < now() - interval '1 day'") },
  // Governance access tokens: 1 hour; expired or revoked ones only answer INVALID_ACCESS_TOKEN, as unknown ones do.
  {
    name: "access_token",
    sql: batchDelete("access_token", "expires_at < now() - interval '1 day' or revoked_at < now() - interval '1 day'"),
  },
  // Skill attempts are answerable for 30 minutes; graded ones are kept in api.verification with their answers.
  { name: "skill_attempt", sql: batchDelete("skill_attempt", "expires_at < now() - interval '1 day'") },
  // Rate-limit windows: the longest is 7 days (registration); an ended window is never read again.
  { name: "rate_limit", sql: batchDelete("rate_limit", "window_start < now() - interval '8 days'") },
  // Leased per-minute windows (public limit): ended a minute after they started.
  { name: "rate_limit_lease", sql: batchDelete("rate_limit_lease", "window_start < now() - interval '1 hour'") },
  // Webhook deliveries that ended (delivered or given up) 30 days ago; the delivery log shows the last 30 days.
  {
    name: "webhook_delivery",
    sql: batchDelete(
      "webhook_delivery",
      `status in ('delivered', 'failed')
       and coalesce(delivered_at, last_attempt_at, next_attempt_at) < now() - interval '30 days'`,
    ),
  },
  // Events with no delivery left (all pruned, or none subscribed) after 30 days.
  {
    name: "org_event",
    sql: batchDelete(
      "org_event",
      `created_at < now() - interval '30 days'
       and not exists (select 1 from api.webhook_delivery d where d.event_id = org_event.id)`,
    ),
  },
  // x402 payments: the token itself refuses a used or expired EIP-3009 authorization, so a settled (COMPLETED and
  // delivered) or FAILED row whose authorization expired a day ago protects nothing. Spec-scheme rows stay.
  {
    name: "payment_x402",
    sql: batchDelete(
      "payment",
      `scheme = 'x402-exact' and ((status = 'COMPLETED' and delivered) or status = 'FAILED')
       and (payload #>> '{authorization,validBefore}')::numeric < extract(epoch from now()) - 86400`,
    ),
  },
];

export async function pruneStorage(deps: Deps): Promise<Record<string, number>> {
  const deleted: Record<string, number> = {};
  for (const rule of RULES) {
    let total = 0;
    for (;;) {
      const { rowCount } = await deps.pool.query(rule.sql);
      total += rowCount ?? 0;
      if ((rowCount ?? 0) < BATCH) break;
    }
    deleted[rule.name] = total;
  }
  return deleted;
}

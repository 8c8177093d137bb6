// Organization credentials (api.org_credential: live, test and member keys, secrets; only SHA-256 hashes stored)
// and the one statement every request made with an organization key costs (authenticateOrgKey).
import type pg from "pg";
import { withTransaction } from "../db/transaction.ts";
import type { PlanName, Role } from "../domain/plans.ts";

type Q = Pick<pg.Pool, "query">;

/** What authenticateOrgKey answers for a known key (null: unknown, revoked or past its grace period). */
export interface OrgKeyAuth {
  keyHash: string;
  orgId: string;
  kind: "live" | "test" | "member";
  plan: PlanName;
  memberId: string | null;
  memberRole: Role | null;
  /** x-api-secret was absent, or present and valid for this organization (never valid with a member key). */
  secretOk: boolean;
  /** In force for the organization: its own values, else its plan's; null: unlimited. */
  paymentsPerDay: number | null;
  apiCallsPerMonth: number | null;
  /** The plan's requests per minute (scaled); hits counted in this minute, this one included (null on paid routes). */
  perMinute: number;
  minuteCount: number | null;
  /** The period's use after this request; null when nothing was taken (over the quota, or not counted). */
  callsUsed: number | null;
  paymentsUsed: number | null;
}

export interface OrgKeyRequest {
  keyHash: string;
  secretHash: string | null;
  /** Not a read (GET, HEAD, OPTIONS): a viewer's write is refused, and not counted. */
  write: boolean;
  /** A paid route: takes a payment slot instead of the per-minute limit, the monthly calls and usage. */
  paid: boolean;
  /** Unix seconds: the minute window, the UTC day (payments) and the UTC month (calls) holding now. */
  minuteStart: number;
  dayStart: number;
  monthStart: number;
  /** Per plan: requests per minute (scaled) and the plan's quotas (null: unlimited). */
  plans: Record<PlanName, { rpm: number; paymentsPerDay: number | null; apiCallsPerMonth: number | null }>;
}

/**
 * One round trip for an organization key: finds the key (and checks the secret), then, only for a valid
 * credential, counts the request in the plan's per-minute window, takes a slot of the monthly calls (when the
 * minute allows) or of the daily payments (paid routes), and counts usage (allowed unpaid requests). Every counter
 * is a conditional upsert on a shared row, so the limits hold across API processes and under concurrency.
 */
export async function authenticateOrgKey(db: Q, r: OrgKeyRequest): Promise<OrgKeyAuth | null> {
  const { rows } = await db.query<{
    key_hash: string;
    org_id: string;
    kind: OrgKeyAuth["kind"];
    plan: PlanName;
    member_id: string | null;
    member_role: Role | null;
    secret_ok: boolean;
    rpm: number;
    payments_per_day: number | null;
    api_calls_per_month: number | null;
    minute_count: number | null;
    calls_used: string | null;
    payments_used: string | null;
  }>(
    `with found as (
       select k.key_hash, k.org_id, k.kind, o.plan, m.id member_id, m.role member_role, (p.v ->> 'rpm')::int rpm,
              coalesce(o.payments_per_day, (p.v ->> 'paymentsPerDay')::int) payments_per_day,
              coalesce(o.api_calls_per_month, (p.v ->> 'apiCallsPerMonth')::int) api_calls_per_month,
              $2::text is null or (k.kind <> 'member' and exists (
                select 1 from api.org_credential s where s.key_hash = $2 and s.org_id = k.org_id and s.kind = 'secret'
                   and (s.expires_at is null or s.expires_at > now()))) secret_ok
         from api.org_credential k
         join api.organization o on o.id = k.org_id
         left join api.org_member m on m.id = k.member_id
         cross join lateral (select $7::jsonb -> o.plan v) p
        where k.key_hash = $1 and k.kind in ('live', 'test', 'member') and (k.expires_at is null or k.expires_at > now())
          and (k.kind <> 'member' or m.role is not null)
     ),
     -- Counted: a valid credential whose role may make this request (a viewer only reads).
     k as (select *, secret_ok and not ($8 and member_role is not distinct from 'viewer') counts from found),
     minute as (
       insert into api.rate_limit as r (key, window_start, count)
       select 'org:' || org_id || ':60', to_timestamp($4), 1 from k where counts and not $3
       on conflict (key, window_start) do update set count = r.count + 1
       returning count
     ),
     calls as (
       insert into api.org_quota as q (org_id, kind, period_start, used)
       select org_id, 'calls', to_timestamp($6), 1 from k
        where counts and not $3 and api_calls_per_month is not null and (select count from minute) <= rpm
       on conflict (org_id, kind, period_start) do update set used = q.used + 1
        where q.used < (select api_calls_per_month from k)
       returning used
     ),
     payments as (
       insert into api.org_quota as q (org_id, kind, period_start, used)
       select org_id, 'payments', to_timestamp($5), 1 from k where counts and $3 and payments_per_day is not null
       on conflict (org_id, kind, period_start) do update set used = q.used + 1
        where q.used < (select payments_per_day from k)
       returning used
     ),
     usage as (
       insert into api.org_usage as u (org_id, day, requests, x402_payments, x402_volume)
       select org_id, (now() at time zone 'UTC')::date, 1, 0, 0 from k
        where counts and not $3 and (select count from minute) <= rpm
          and (api_calls_per_month is null or exists (select 1 from calls))
       on conflict (org_id, day) do update set requests = u.requests + 1
       returning 1
     )
     select k.*, (select count from minute) minute_count, (select used from calls) calls_used,
            (select used from payments) payments_used, (select count(*) from usage) usage_counted
       from k`,
    [r.keyHash, r.secretHash, r.paid, r.minuteStart, r.dayStart, r.monthStart, JSON.stringify(r.plans), r.write],
  );
  const row = rows[0];
  if (!row) return null;
  return {
    keyHash: row.key_hash,
    orgId: row.org_id,
    kind: row.kind,
    plan: row.plan,
    memberId: row.member_id,
    memberRole: row.member_role,
    secretOk: row.secret_ok,
    paymentsPerDay: row.payments_per_day,
    apiCallsPerMonth: row.api_calls_per_month,
    perMinute: row.rpm,
    minuteCount: row.minute_count,
    callsUsed: row.calls_used === null ? null : Number(row.calls_used),
    paymentsUsed: row.payments_used === null ? null : Number(row.payments_used),
  };
}

/** Gives back a payment slot taken by authenticateOrgKey (the request made no payment). */
export async function giveBackPaymentSlot(db: Q, orgId: string, periodStart: number): Promise<void> {
  await db.query(
    `update api.org_quota set used = used - 1
      where org_id = $1 and kind = 'payments' and period_start = to_timestamp($2) and used > 0`,
    [orgId, periodStart],
  );
}

/** Counts a paid request in the organization's usage, with its x402 payment (volume in USDC base units). */
export async function countPaidUsage(db: Q, orgId: string, payments: 0 | 1, volume: bigint): Promise<void> {
  await db.query(
    `insert into api.org_usage as u (org_id, day, requests, x402_payments, x402_volume)
     values ($1, (now() at time zone 'UTC')::date, 1, $2, $3::numeric)
     on conflict (org_id, day) do update set requests = u.requests + 1,
       x402_payments = u.x402_payments + excluded.x402_payments, x402_volume = u.x402_volume + excluded.x402_volume`,
    [orgId, payments, volume.toString()],
  );
}

export type CredentialKind = "live" | "test" | "secret" | "member";

/** Stores a new credential's hash (and display prefix). */
export async function insertCredential(
  tx: Q,
  c: { hash: string; orgId: string; kind: CredentialKind; prefix: string; memberId?: string },
): Promise<void> {
  await tx.query(
    "insert into api.org_credential (key_hash, org_id, kind, prefix, member_id) values ($1, $2, $3, $4, $5)",
    [c.hash, c.orgId, c.kind, c.prefix, c.memberId ?? null],
  );
}

/** Ends a member's keys now (a new key for the member, or a removed member). */
export async function endMemberKeys(tx: Q, memberId: string): Promise<void> {
  await tx.query(
    `update api.org_credential set expires_at = now() - interval '1 second'
      where member_id = $1 and (expires_at is null or expires_at > now())`,
    [memberId],
  );
}

/**
 * Replaces the organization's credential of `kind` by `c` under a lock on the organization row: the values it
 * replaces keep working for `graceDays` (database clock; earlier rotations keep their earlier end), or stop now
 * when `revokePrevious`. Returns when the replaced values stop working.
 */
export async function rotateCredential(
  pool: pg.Pool,
  c: { hash: string; orgId: string; kind: "live" | "test" | "secret"; prefix: string },
  graceDays: number,
  revokePrevious: boolean,
): Promise<Date> {
  return withTransaction(pool, async (client) => {
    await client.query("select 1 from api.organization where id = $1 for update", [c.orgId]);
    const { rows } = await client.query<{ until: Date }>(
      // One second in the past when revoking: `expires_at > now()` is what every lookup checks.
      `select case when $2 then now() - interval '1 second' else now() + make_interval(days => $1) end until`,
      [graceDays, revokePrevious],
    );
    const until = rows[0]!.until;
    await client.query(
      `update api.org_credential set expires_at = $3 where org_id = $1 and kind = $2
          and (expires_at is null or expires_at > $3)`,
      [c.orgId, c.kind, until],
    );
    await insertCredential(client, c);
    return until;
  });
}

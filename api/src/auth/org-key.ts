// Organization keys. An organization key (`Authorization: Bearer ah_live_...`/`ah_test_...` or `x-api-key`)
// identifies the organization on any /api call: the request is rate limited per the org's plan (instead of per IP),
// counted in its usage, acts with a role (roles.ts; member keys `ah_member_` too), runs under the organization's
// row-level security scope (db/org-scope.ts), and lists and aggregates are scoped to it. One statement
// authenticates the key and counts the request (stores/org-credentials.ts, docs/decisions.md "One statement per
// organization key").
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, OrgAuth } from "../context.ts";
import { runInOrgScope } from "../db/org-scope.ts";
import { PLAN_NAMES, PLANS, type QuotaDecision, quotaPeriod, type Role } from "../domain/plans.ts";
import { PAID_PATHS } from "../domain/prices.ts";
import { apiError } from "../errors.ts";
import { writeRateHeaders } from "../lib/rate-limit.ts";
import { authenticateOrgKey, countPaidUsage, giveBackPaymentSlot } from "../stores/org-credentials.ts";
import { hashCredential, keyKind, sameDigest, wellFormed } from "./credentials.ts";
import { assertViewerReads } from "./roles.ts";

const USDC_PER_18_DECIMALS = 10n ** 12n;
const PAID_PATH_SET = new Set<string>(PAID_PATHS);

/** The organization key of a request, if it presents one. */
function presentedKey(c: Context<AppEnv>): string | undefined {
  const header = c.req.header("x-api-key")?.trim();
  if (header) return header;
  const auth = c.req.header("authorization") ?? "";
  const bearer = auth.match(/^Bearer\s+(\S+)$/i)?.[1];
  return bearer && keyKind(bearer) ? bearer : undefined;
}

const invalidKey = () =>
  apiError("INVALID_API_KEY", "the API key is unknown, revoked or past its rotation grace period");

/** Each plan's per-minute limit (scaled like every rate limit) and quotas, as the statement reads them. */
function planTable(multiplier: number) {
  return Object.fromEntries(
    PLAN_NAMES.map((name) => {
      const p = PLANS[name];
      const rpm = Math.ceil(p.requestsPerMinute * multiplier);
      return [name, { rpm, paymentsPerDay: p.paymentsPerDay, apiCallsPerMonth: p.apiCallsPerMonth }];
    }),
  ) as Parameters<typeof authenticateOrgKey>[1]["plans"];
}
const planTables = new Map<number, ReturnType<typeof planTable>>();

/** Global /api middleware: resolves an organization key, applies the plan's rate limit and quotas, counts usage. */
export const orgKeyMiddleware: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = presentedKey(c);
  if (key === undefined) return next();
  const kind = keyKind(key);
  if (!kind || !wellFormed(key, kind)) throw invalidKey();
  const deps = c.get("deps");
  const multiplier = deps.env.RATE_LIMIT_MULTIPLIER;
  if (!planTables.has(multiplier)) planTables.set(multiplier, planTable(multiplier));
  const hash = hashCredential(key);
  const secret = c.req.header("x-api-secret")?.trim() || undefined;
  const paid = PAID_PATH_SET.has(c.req.path);
  const nowMs = Date.now();
  const now = Math.floor(nowMs / 1000);
  const day = quotaPeriod("payments", nowMs);
  const month = quotaPeriod("calls", nowMs);
  const row = await authenticateOrgKey(deps.pool, {
    keyHash: hash,
    secretHash: secret ? hashCredential(secret) : null,
    paid,
    write: !["GET", "HEAD", "OPTIONS"].includes(c.req.method),
    minuteStart: now - (now % 60),
    dayStart: day.start,
    monthStart: month.start,
    plans: planTables.get(multiplier)!,
  });
  if (!row || !sameDigest(row.keyHash, hash)) throw invalidKey();
  if (secret && row.kind === "member") {
    throw apiError("INVALID_API_SECRET", "x-api-secret goes with the organization key, not a member key");
  }
  if (secret && (!wellFormed(secret, "secret") || !row.secretOk)) {
    throw apiError("INVALID_API_SECRET", "x-api-secret does not match this organization's secret");
  }
  const secretVerified = secret !== undefined;
  const role: Role = row.memberRole ?? (secretVerified ? "admin" : "developer");
  const org: OrgAuth = {
    id: row.orgId,
    plan: row.plan,
    keyKind: row.kind,
    secretVerified,
    role,
    memberId: row.memberId,
  };
  c.set("org", org);
  assertViewerReads(role, c.req.method);

  // Paid routes are priced per request, not rate limited (spec §8), with or without a key; with a key they take a
  // slot of the plan's payments per day (given back when no payment was made). Other routes count toward the
  // plan's per-minute limit and its API calls per month. Headers: the binding limit.
  let paymentSlot: QuotaDecision | undefined;
  if (paid) {
    if (row.paymentsPerDay !== null) {
      paymentSlot = decision(row.paymentsUsed, row.paymentsPerDay, day);
      writeRateHeaders(c, paymentSlot);
      if (!paymentSlot.allowed) throw quotaExceeded(c, paymentSlot, "PAYMENT_QUOTA_EXCEEDED", "payments per day");
    }
  } else {
    const count = row.minuteCount ?? 0;
    const minute = {
      limit: row.perMinute,
      remaining: Math.max(0, row.perMinute - count),
      reset: now - (now % 60) + 60,
    };
    writeRateHeaders(c, minute);
    if (count > row.perMinute) {
      c.header("Retry-After", String(Math.max(1, minute.reset - now)));
      throw apiError(
        "RATE_LIMITED",
        `too many requests: the ${org.plan} plan allows ${row.perMinute} requests per minute`,
      );
    }
    if (row.apiCallsPerMonth !== null) {
      const calls = decision(row.callsUsed, row.apiCallsPerMonth, month);
      if (!calls.allowed) {
        writeRateHeaders(c, calls);
        throw quotaExceeded(c, calls, "API_QUOTA_EXCEEDED", "API calls per month");
      }
      if (calls.remaining < minute.remaining) writeRateHeaders(c, calls);
    }
  }
  try {
    // Everything the request does in the database runs under the organization's row-level security scope.
    await runInOrgScope(org.id, next);
  } finally {
    if (paymentSlot?.allowed && !(c.res.status < 400 && c.get("payment"))) {
      const slot = paymentSlot;
      await giveBackPaymentSlot(deps.pool, org.id, slot.periodStart).then(
        () => writeRateHeaders(c, { ...slot, remaining: slot.remaining + 1 }),
        (err) => deps.logger.warn({ err, org: org.id }, "could not give back a payment quota slot"),
      );
    }
  }
  if (!paid) return; // counted by the statement above
  // Usage of a paid route: the request, and its x402 payment (volume in USDC base units) when it succeeded.
  const payment = c.res.status < 400 ? c.get("payment") : undefined;
  let volume = 0n;
  if (payment) volume = BigInt(payment.amount) / (payment.scheme === "agenthub" ? USDC_PER_18_DECIMALS : 1n);
  await countPaidUsage(deps.pool, org.id, payment ? 1 : 0, volume).catch((err) =>
    deps.logger.warn({ err, org: org.id }, "could not count organization usage"),
  );
};

/** A quota decision from the period's use after this request (null: nothing was taken, the quota is used up). */
function decision(used: number | null, limit: number, period: { start: number; end: number }): QuotaDecision {
  return {
    allowed: used !== null,
    limit,
    remaining: Math.max(0, limit - (used ?? limit)),
    reset: period.end,
    periodStart: period.start,
  };
}

function quotaExceeded(
  c: Context<AppEnv>,
  d: QuotaDecision,
  code: "PAYMENT_QUOTA_EXCEEDED" | "API_QUOTA_EXCEEDED",
  what: string,
) {
  c.header("Retry-After", String(Math.max(1, d.reset - Math.floor(Date.now() / 1000))));
  return apiError(
    code,
    `the organization's quota of ${d.limit} ${what} is used up; it resets at ${new Date(d.reset * 1000).toISOString()}`,
  );
}

// Organization authentication. An organization key (`Authorization: Bearer ah_live_...`/`ah_test_...` or
// `x-api-key`) identifies the organization on any /api call: the request is rate limited per the org's plan
// (instead of per IP), counted in its usage, and agent registration/listing are scoped to it. Management calls
// need the admin token, or the org's key plus its secret (`x-api-secret`).
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv, OrgAuth } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { PAID_PATHS } from "../../payments/prices.ts";
import { hashCredential, keyKind, sameDigest, wellFormed } from "./credentials.ts";
import { PLANS, type PlanName } from "./plans.ts";

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

export const invalidKey = () =>
  new ApiError(401, "INVALID_API_KEY", "the API key is unknown, revoked or past its rotation grace period");

/** Global /api middleware: resolves an organization key, applies the plan's rate limit and counts usage. */
export const orgKeyMiddleware: MiddlewareHandler<AppEnv> = async (c, next) => {
  const key = presentedKey(c);
  if (key === undefined) return next();
  const kind = keyKind(key);
  if (!kind || !wellFormed(key, kind)) throw invalidKey();
  const deps = c.get("deps");
  const hash = hashCredential(key);
  const { rows } = await deps.pool.query<{ key_hash: string; org_id: string; kind: "live" | "test"; plan: PlanName }>(
    `select k.key_hash, k.org_id, k.kind, o.plan from api.org_credential k join api.organization o on o.id = k.org_id
      where k.key_hash = $1 and k.kind in ('live', 'test') and (k.expires_at is null or k.expires_at > now())`,
    [hash],
  );
  const row = rows[0];
  if (!row || !sameDigest(row.key_hash, hash)) throw invalidKey();

  let secretVerified = false;
  const secret = c.req.header("x-api-secret")?.trim();
  if (secret) {
    const secretHash = hashCredential(secret);
    const s = await deps.pool.query<{ key_hash: string }>(
      `select key_hash from api.org_credential where key_hash = $1 and org_id = $2 and kind = 'secret'
          and (expires_at is null or expires_at > now())`,
      [secretHash, row.org_id],
    );
    if (!wellFormed(secret, "secret") || !s.rows[0] || !sameDigest(s.rows[0].key_hash, secretHash)) {
      throw new ApiError(401, "INVALID_API_SECRET", "x-api-secret does not match this organization's secret");
    }
    secretVerified = true;
  }
  const org: OrgAuth = { id: row.org_id, plan: row.plan, keyKind: row.kind, secretVerified };
  c.set("org", org);

  // Paid routes are priced per request, not rate limited (spec §8), with or without a key; they still count as usage.
  if (!PAID_PATH_SET.has(c.req.path)) await planLimit(c, org);
  await next();

  // Usage: every request made with the key; x402 payments (volume in USDC base units) on successful paid calls.
  const payment = c.res.status < 400 ? c.get("payment") : undefined;
  let volume = 0n;
  if (payment) volume = BigInt(payment.amount) / (payment.scheme === "agenthub" ? USDC_PER_18_DECIMALS : 1n);
  await deps.pool
    .query(
      `insert into api.org_usage as u (org_id, day, requests, x402_payments, x402_volume)
       values ($1, (now() at time zone 'UTC')::date, 1, $2, $3::numeric)
       on conflict (org_id, day) do update set requests = u.requests + 1,
         x402_payments = u.x402_payments + excluded.x402_payments, x402_volume = u.x402_volume + excluded.x402_volume`,
      [org.id, payment ? 1 : 0, volume.toString()],
    )
    .catch((err) => deps.logger.warn({ err, org: org.id }, "could not count organization usage"));
};

/** The plan's requests per minute for this organization (Postgres fixed window shared by every API process). */
async function planLimit(c: Context<AppEnv>, org: OrgAuth): Promise<void> {
  const decision = await c
    .get("deps")
    .rateLimiter.hit(`org:${org.id}`, [{ windowSec: 60, max: PLANS[org.plan].requestsPerMinute }]);
  c.header("X-RateLimit-Limit", String(decision.limit));
  c.header("X-RateLimit-Remaining", String(decision.remaining));
  c.header("X-RateLimit-Reset", String(decision.reset));
  if (!decision.allowed) {
    c.header("Retry-After", String(Math.max(1, decision.reset - Math.floor(Date.now() / 1000))));
    throw new ApiError(
      429,
      "RATE_LIMITED",
      `too many requests: the ${org.plan} plan allows ${decision.limit} requests per minute`,
    );
  }
}

export function isAdmin(c: Context<AppEnv>): boolean {
  const expected = Buffer.from(`Bearer ${c.get("deps").env.ADMIN_TOKEN}`);
  const given = Buffer.from(c.req.header("authorization") ?? "");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * Who may act on organization `orgId`: the admin token, or that organization's key (with its secret when
 * `needSecret`). Returns "admin" or "org"; throws 401/403 otherwise. Existence is checked by the caller.
 */
export function authorizeOrg(c: Context<AppEnv>, orgId: string, needSecret: boolean): "admin" | "org" {
  if (isAdmin(c)) return "admin";
  const org = c.get("org");
  if (!org) {
    throw new ApiError(
      401,
      "AUTH_REQUIRED",
      needSecret
        ? "this operation needs the admin bearer token, or the organization's x-api-key and x-api-secret"
        : "this operation needs the admin bearer token or the organization's API key",
    );
  }
  if (org.id !== orgId) {
    throw new ApiError(403, "ORGANIZATION_FORBIDDEN", "the API key belongs to another organization");
  }
  if (needSecret && !org.secretVerified) {
    throw new ApiError(401, "API_SECRET_REQUIRED", "this operation needs x-api-secret next to the API key");
  }
  return "org";
}

// Rate limits as the routes apply them: the named limits, the per-IP middleware and its X-RateLimit-* headers. The
// counting (shared and leased windows in Postgres) is deps.rateLimiter (stores/rate-limits.ts).
import type { Context, MiddlewareHandler } from "hono";
import type pg from "pg";
import type { AppEnv } from "../context.ts";
import { apiError } from "../errors.ts";
import { clientKey } from "./client-ip.ts";

export interface Limit {
  windowSec: number;
  max: number;
}

export const LIMITS = {
  public: [{ windowSec: 60, max: 100 }],
  registration: [
    { windowSec: 24 * 3600, max: 3 },
    { windowSec: 7 * 24 * 3600, max: 10 },
  ],
  stake: [{ windowSec: 60, max: 5 }],
  claim: [{ windowSec: 60, max: 10 }],
} satisfies Record<string, Limit[]>;

/**
 * Counts one request against `limits` for the client IP and sets X-RateLimit-* headers; 429 when over. Call it
 * where the request has passed validation, so malformed requests use up nobody's allowance.
 */
export async function enforceRateLimit(
  c: Context<AppEnv>,
  name: string,
  limits: Limit[],
  db?: Pick<pg.Pool, "query">,
  opts: { leased?: boolean } = {},
): Promise<void> {
  const { env, rateLimiter } = c.get("deps");
  const key = `${name}:${clientKey(c, env.TRUST_PROXY)}`;
  const decision = opts.leased ? await rateLimiter.hitLeased(key, limits) : await rateLimiter.hit(key, limits, db);
  writeRateHeaders(c, decision);
  if (!decision.allowed) {
    c.header("Retry-After", String(Math.max(1, decision.reset - Math.floor(Date.now() / 1000))));
    throw apiError("RATE_LIMITED", `too many requests: ${decision.limit} allowed per window for ${name}`);
  }
}

/**
 * The same limit as middleware (for limits that count every request, valid or not). `leased`: counted by leases
 * (short, high-volume windows such as the public per-minute limit).
 */
export function rateLimit(name: string, limits: Limit[], opts: { leased?: boolean } = {}): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await enforceRateLimit(c, name, limits, undefined, opts);
    await next();
  };
}

/**
 * Sets X-RateLimit-Limit/Remaining/Reset. Once the response exists they go on its own headers: c.header() would
 * rebuild it around a stream, and @hono/node-server then leaves its fast path (measured on paid search answers).
 */
export function writeRateHeaders(c: Context, d: { limit: number; remaining: number; reset: number }): void {
  const set = c.finalized ? (name: string, value: string) => c.res.headers.set(name, value) : c.header;
  set("X-RateLimit-Limit", String(d.limit));
  set("X-RateLimit-Remaining", String(d.remaining));
  set("X-RateLimit-Reset", String(d.reset));
}

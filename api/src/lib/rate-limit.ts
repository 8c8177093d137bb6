// Fixed-window rate limits counted in Postgres, so every API process shares them.
import type { Context, MiddlewareHandler } from "hono";
import type pg from "pg";
import type { AppEnv } from "../context.ts";
import { ApiError } from "../errors.ts";
import { clientIp } from "./client-ip.ts";

export interface Limit {
  windowSec: number;
  max: number;
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the binding window resets. */
  reset: number;
}

export class RateLimiter {
  constructor(
    private readonly pool: pg.Pool,
    private readonly multiplier = 1,
  ) {}

  /** Counts one hit; inside a caller's transaction (`db`) the count commits or rolls back with it. */
  async hit(key: string, limits: Limit[], db: Pick<pg.Pool, "query"> = this.pool): Promise<RateDecision> {
    const now = Math.floor(Date.now() / 1000);
    const windows = limits.map((l) => ({
      ...l,
      max: Math.ceil(l.max * this.multiplier),
      start: now - (now % l.windowSec),
    }));
    const { rows } = await db.query<{ count: number }>(
      `insert into api.rate_limit (key, window_start, count)
       select k, to_timestamp(s), 1 from unnest($1::text[], $2::bigint[]) as t(k, s)
       on conflict (key, window_start) do update set count = api.rate_limit.count + 1
       returning count`,
      [windows.map((w) => `${key}:${w.windowSec}`), windows.map((w) => w.start)],
    );
    let decision: RateDecision | undefined;
    let allowed = true;
    windows.forEach((w, i) => {
      const count = rows[i]?.count ?? 0;
      if (count > w.max) allowed = false;
      const candidate = {
        allowed: true,
        limit: w.max,
        remaining: Math.max(0, w.max - count),
        reset: w.start + w.windowSec,
      };
      if (!decision || candidate.remaining < decision.remaining) decision = candidate;
    });
    return { ...decision!, allowed };
  }
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
): Promise<void> {
  const { env, rateLimiter } = c.get("deps");
  const ip = clientIp(c, env.TRUST_PROXY);
  const decision = await rateLimiter.hit(`${name}:${ip}`, limits, db);
  c.header("X-RateLimit-Limit", String(decision.limit));
  c.header("X-RateLimit-Remaining", String(decision.remaining));
  c.header("X-RateLimit-Reset", String(decision.reset));
  if (!decision.allowed) {
    c.header("Retry-After", String(Math.max(1, decision.reset - Math.floor(Date.now() / 1000))));
    throw new ApiError(429, "RATE_LIMITED", `too many requests: ${decision.limit} allowed per window for ${name}`);
  }
}

/** The same limit as middleware (for limits that count every request, valid or not). */
export function rateLimit(name: string, limits: Limit[]): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    await enforceRateLimit(c, name, limits);
    await next();
  };
}

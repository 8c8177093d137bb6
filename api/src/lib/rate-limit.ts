// Fixed-window rate limits counted in Postgres, so every API process shares them. Two ways to count:
// - shared: one upsert per hit (optionally inside the caller's transaction, so the count commits with its work);
// - leased (the public per-IP limit, on every read): a process takes a slice of a window's allowance from Postgres
//   and admits hits from memory until the slice is used up. Slices shrink as the window fills (an eighth of what is
//   left, at most LEASE_CAP, at least 1), and the total handed out never admits more than the limit, so the limit
//   holds across processes; a slice a process does not use before the window ends is lost (at most 1/8 of the rest).
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

/** Largest slice of a window one process takes at a time. */
const LEASE_CAP = 32;
/** Leases kept in memory before ended windows are swept out. */
const LEASE_SWEEP_AT = 10_000;
/**
 * How long a peek at a window this process holds no lease of is reused: the headers of paid responses (which no
 * limiter counts) then cost at most one read per client IP and second instead of one per request.
 */
const PEEK_TTL_MS = 1_000;

interface Lease {
  windowStart: number;
  windowEnd: number;
  /** Hits this process may still admit from its slices. */
  left: number;
  /** Hits handed out by Postgres for the window at the last grant (all processes). */
  granted: number;
  /** The window is full: nothing more can be granted until it ends. */
  full: boolean;
}

export class RateLimiter {
  private readonly leases = new Map<string, Lease>();
  /** Windows read by peekLeased without a lease here: what Postgres had handed out, and when it was read. */
  private readonly peeks = new Map<string, { windowStart: number; granted: number; readAt: number }>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly multiplier = 1,
  ) {}

  /**
   * Counts one hit against `limits` by leases (see the header): no Postgres round trip while this process holds an
   * unused slice of every window, or the window is known to be full.
   */
  async hitLeased(key: string, limits: Limit[]): Promise<RateDecision> {
    const now = Math.floor(Date.now() / 1000);
    const windows = limits.map((l) => {
      const start = now - (now % l.windowSec);
      return { key: `${key}:${l.windowSec}`, max: Math.ceil(l.max * this.multiplier), start, end: start + l.windowSec };
    });
    const current = (w: (typeof windows)[number]) => {
      const lease = this.leases.get(w.key);
      return lease?.windowStart === w.start ? lease : undefined;
    };
    const refill = windows.filter((w) => {
      const lease = current(w);
      return !lease || (lease.left <= 0 && !lease.full);
    });
    if (refill.length > 0) await this.grant(refill);
    let allowed = true;
    let decision: RateDecision | undefined;
    for (const w of windows) {
      const lease = current(w)!;
      if (lease.left > 0) lease.left--;
      else allowed = false;
      const remaining = Math.max(0, w.max - lease.granted + lease.left);
      if (!decision || remaining < decision.remaining) {
        decision = { allowed: true, limit: w.max, remaining, reset: w.end };
      }
    }
    return { ...decision!, allowed };
  }

  /**
   * What hitLeased would report for `key` without counting a hit (X-RateLimit-* headers on responses no limiter
   * counted, lib/rate-headers.ts): from this process's lease, else from what Postgres handed out for the window.
   */
  async peekLeased(key: string, limits: Limit[]): Promise<RateDecision> {
    const now = Math.floor(Date.now() / 1000);
    let decision: RateDecision | undefined;
    for (const l of limits) {
      const start = now - (now % l.windowSec);
      const max = Math.ceil(l.max * this.multiplier);
      const lease = this.leases.get(`${key}:${l.windowSec}`);
      let remaining: number;
      if (lease?.windowStart === start) remaining = Math.max(0, max - lease.granted + lease.left);
      else remaining = Math.max(0, max - (await this.grantedElsewhere(`${key}:${l.windowSec}`, start)));
      if (!decision || remaining < decision.remaining) {
        decision = { allowed: true, limit: max, remaining, reset: start + l.windowSec };
      }
    }
    return decision!;
  }

  /** What Postgres has handed out for a window this process holds no lease of (read at most once per PEEK_TTL_MS). */
  private async grantedElsewhere(windowKey: string, windowStart: number): Promise<number> {
    const seen = this.peeks.get(windowKey);
    if (seen?.windowStart === windowStart && Date.now() - seen.readAt < PEEK_TTL_MS) return seen.granted;
    const { rows } = await this.pool.query<{ granted: number }>(
      "select granted from api.rate_limit_lease where key = $1 and window_start = to_timestamp($2)",
      [windowKey, windowStart],
    );
    const granted = rows[0]?.granted ?? 0;
    if (this.peeks.size > LEASE_SWEEP_AT) this.peeks.clear();
    this.peeks.set(windowKey, { windowStart, granted, readAt: Date.now() });
    return granted;
  }

  /** Takes the next slice of each window from Postgres and adds what it admits to this process's leases. */
  private async grant(windows: { key: string; max: number; start: number; end: number }[]): Promise<void> {
    const { rows } = await this.pool.query<{ key: string; granted: number; last_grant: number }>(
      `insert into api.rate_limit_lease as r (key, window_start, granted, last_grant, max)
       select k, to_timestamp(s), g, g, m from unnest($1::text[], $2::bigint[], $3::int[], $4::int[]) as t(k, s, g, m)
       on conflict (key, window_start) do update
         set granted = r.granted + greatest(1, least(${LEASE_CAP}, (excluded.max - r.granted) / 8)),
             last_grant = greatest(1, least(${LEASE_CAP}, (excluded.max - r.granted) / 8)),
             max = excluded.max
       returning key, granted, last_grant`,
      [
        windows.map((w) => w.key),
        windows.map((w) => w.start),
        windows.map((w) => Math.max(1, Math.min(LEASE_CAP, Math.floor(w.max / 8)))),
        windows.map((w) => w.max),
      ],
    );
    const byKey = new Map(rows.map((r) => [r.key, r]));
    for (const w of windows) {
      const row = byKey.get(w.key)!;
      // Of this grant, only what still fits under the limit is admitted; the rest marks the window full.
      const before = row.granted - row.last_grant;
      const admitted = Math.max(0, Math.min(row.last_grant, w.max - before));
      const lease = this.leases.get(w.key);
      const left = (lease?.windowStart === w.start ? lease.left : 0) + admitted;
      this.leases.set(w.key, {
        windowStart: w.start,
        windowEnd: w.end,
        left,
        granted: row.granted,
        full: row.granted >= w.max,
      });
    }
    if (this.leases.size > LEASE_SWEEP_AT) this.sweep();
  }

  private sweep(): void {
    const now = Math.floor(Date.now() / 1000);
    for (const [key, lease] of this.leases) if (lease.windowEnd <= now) this.leases.delete(key);
  }

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

/**
 * The state of `limits` for `key` without counting a hit: X-RateLimit-* headers for responses no limiter counted
 * (paid routes, errors before the limiter; lib/rate-headers.ts).
 */
export async function peekRateLimit(
  pool: Pick<pg.Pool, "query">,
  key: string,
  limits: Limit[],
  multiplier = 1,
): Promise<RateDecision> {
  const now = Math.floor(Date.now() / 1000);
  const windows = limits.map((l) => ({ ...l, max: Math.ceil(l.max * multiplier), start: now - (now % l.windowSec) }));
  const { rows } = await pool.query<{ count: number }>(
    `select coalesce(r.count, 0)::int count
       from unnest($1::text[], $2::bigint[]) with ordinality as t(k, s, i)
       left join api.rate_limit r on r.key = t.k and r.window_start = to_timestamp(t.s)
      order by t.i`,
    [windows.map((w) => `${key}:${w.windowSec}`), windows.map((w) => w.start)],
  );
  let decision: RateDecision | undefined;
  windows.forEach((w, i) => {
    const candidate = {
      allowed: true,
      limit: w.max,
      remaining: Math.max(0, w.max - (rows[i]?.count ?? 0)),
      reset: w.start + w.windowSec,
    };
    if (!decision || candidate.remaining < decision.remaining) decision = candidate;
  });
  return decision!;
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
  const key = `${name}:${clientIp(c, env.TRUST_PROXY)}`;
  const decision = opts.leased ? await rateLimiter.hitLeased(key, limits) : await rateLimiter.hit(key, limits, db);
  c.header("X-RateLimit-Limit", String(decision.limit));
  c.header("X-RateLimit-Remaining", String(decision.remaining));
  c.header("X-RateLimit-Reset", String(decision.reset));
  if (!decision.allowed) {
    c.header("Retry-After", String(Math.max(1, decision.reset - Math.floor(Date.now() / 1000))));
    throw new ApiError(429, "RATE_LIMITED", `too many requests: ${decision.limit} allowed per window for ${name}`);
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

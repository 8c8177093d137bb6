// Every /api response carries X-RateLimit-Limit/Remaining/Reset (supplement §8). Limiters set them when they count
// a request; for responses none counted (paid routes, which are priced rather than rate limited; errors thrown
// before a limiter ran: unknown key, body too large, no such route, ...) this middleware reports, without counting,
// the per-minute allowance of whoever made the request: the organization's plan limit with a valid organization
// credential, else the public per-IP limit.
import type { MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";
import { PLANS } from "../domain/plans.ts";
import { clientKey } from "./client-ip.ts";
import { LIMITS, writeRateHeaders } from "./rate-limit.ts";

export const rateHeaderFallback: MiddlewareHandler<AppEnv> = async (c, next) => {
  await next();
  if (c.res.headers.has("X-RateLimit-Limit")) return;
  const { env, logger, rateLimiter } = c.get("deps");
  const org = c.get("org");
  try {
    const decision = org
      ? await rateLimiter.peek(`org:${org.id}`, [{ windowSec: 60, max: PLANS[org.plan].requestsPerMinute }])
      : // The public limit is counted by leases (app.ts): read it the same way.
        await rateLimiter.peekLeased(`public:${clientKey(c, env.TRUST_PROXY)}`, LIMITS.public);
    writeRateHeaders(c, decision);
  } catch (err) {
    // The answer is already made; headers are not worth turning it into an error.
    logger.warn({ err }, "could not read the rate limit for the response headers");
  }
};

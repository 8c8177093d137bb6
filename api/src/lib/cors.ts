// CORS: browser pages of the allowed origins may call the API with every credential it takes (CORS_ALLOWED_ORIGINS;
// unset: the deployment's own origin, PUBLIC_URL, and localhost for development). Credentials travel in headers
// (keys, bearer tokens, payments), never in cookies, so answers do not allow credentials mode.
import { cors } from "hono/cors";
import type { ApiEnv } from "../env.ts";

/** Request headers the API reads: organization key + secret, bearer tokens, payments, idempotency, tracing. */
const ALLOWED_HEADERS = [
  "Content-Type",
  "Authorization",
  "X-API-Key",
  "X-API-Secret",
  "X-Payment",
  "Payment-Signature",
  "Idempotency-Key",
  "X-Request-Id",
];

/** Answer headers a page may read: rate limits, retry hints, x402 payment offers and receipts, the request id. */
const EXPOSED_HEADERS = [
  "X-RateLimit-Limit",
  "X-RateLimit-Remaining",
  "X-RateLimit-Reset",
  "Retry-After",
  "Payment-Required",
  "Payment-Response",
  "X-Payment-Response",
  "X-Request-Id",
];

const LOCALHOST = /^http:\/\/(localhost|127\.0\.0\.1|\[::1\])(:\d{1,5})?$/;

/** Whether a page of `origin` may call the API under this configuration. */
export function originAllowed(origin: string, env: Pick<ApiEnv, "CORS_ALLOWED_ORIGINS" | "PUBLIC_URL">): boolean {
  const allowed = env.CORS_ALLOWED_ORIGINS;
  if (allowed === "*") return true;
  if (allowed) return allowed.includes(origin);
  return origin === new URL(env.PUBLIC_URL).origin || LOCALHOST.test(origin);
}

export function corsMiddleware(env: Pick<ApiEnv, "CORS_ALLOWED_ORIGINS" | "PUBLIC_URL">) {
  return cors({
    origin: (origin) => (origin && originAllowed(origin, env) ? origin : null),
    allowMethods: ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"],
    allowHeaders: ALLOWED_HEADERS,
    exposeHeaders: EXPOSED_HEADERS,
    maxAge: 600,
  });
}

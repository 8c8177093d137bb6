// Prometheus metrics shared by the API and the relayer: one registry per process (prom-client), HTTP request
// count and latency labelled by route pattern (never the raw path: ids would explode the series), and the
// `/metrics` endpoint behind a bearer token.
import { timingSafeEqual } from "node:crypto";
import type { Context, MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import { Counter, collectDefaultMetrics, Histogram, Registry } from "prom-client";

/** A registry with Node's process metrics (CPU, memory, event loop lag, GC) under `prefix`. */
export function createRegistry(prefix: string): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: `${prefix}_` });
  return registry;
}

/** The route pattern that answered (`/api/agents/:id`), or "unmatched" for requests no route handles. */
export function routeLabel(c: Context): string {
  const routes = matchedRoutes(c);
  for (let i = routes.length - 1; i >= 0; i--) {
    const route = routes[i]!;
    if (route.method !== "ALL") return route.path;
  }
  return "unmatched";
}

/** Counts and times every request by method, route pattern and status. */
export function httpMetrics(registry: Registry, prefix: string): MiddlewareHandler {
  const labelNames = ["method", "route", "status"] as const;
  const requests = new Counter({
    name: `${prefix}_http_requests_total`,
    help: "HTTP requests answered, by method, route pattern and status",
    labelNames,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${prefix}_http_request_duration_seconds`,
    help: "HTTP request latency in seconds, by method, route pattern and status",
    labelNames,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return async (c, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const labels = { method: c.req.method, route: routeLabel(c), status: String(c.res.status) };
      requests.inc(labels);
      duration.observe(labels, (performance.now() - started) / 1000);
    }
  };
}

/** Constant-time comparison of a presented secret with the expected one. */
export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * GET /metrics in the Prometheus text format. It needs `Authorization: Bearer <token>`: the series tell balances,
 * backlogs and traffic that outsiders have no business reading. Without a token configured the endpoint is off.
 */
export function metricsEndpoint(registry: Registry, token: string | undefined) {
  return async (c: Context) => {
    const error = (status: 401 | 404, code: string, message: string) => c.json({ error: { code, message } }, status);
    if (!token) return error(404, "METRICS_DISABLED", "metrics are off: set METRICS_TOKEN to enable /metrics");
    if (!sameSecret(c.req.header("authorization") ?? "", `Bearer ${token}`))
      return error(401, "UNAUTHORIZED", "metrics need Authorization: Bearer <METRICS_TOKEN>");
    const body = await registry.metrics();
    return c.body(body, 200, { "content-type": registry.contentType, "cache-control": "no-store" });
  };
}

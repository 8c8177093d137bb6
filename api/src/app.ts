import { randomUUID } from "node:crypto";
import { httpMetrics } from "@agenthub/common/metrics";
import { RelayerCallError } from "@agenthub/relayer/client";
import { OpenAPIHono } from "@hono/zod-openapi";
import type { Hono } from "hono";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import { orgKeyMiddleware } from "./auth/org-key.ts";
import { withSecurity } from "./auth/security-schemes.ts";
import type { AppEnv, Deps } from "./context.ts";
import { isPoolTimeout } from "./db/pool.ts";
import { ApiError, errorBody } from "./errors.ts";
import { corsMiddleware } from "./lib/cors.ts";
import { rateHeaderFallback } from "./lib/rate-headers.ts";
import { LIMITS, rateLimit } from "./lib/rate-limit.ts";
import { PAID_PATHS as PRICED_PATHS } from "./payments/index.ts";
import { activityRoutes } from "./routes/activity/index.ts";
import { agentRoutes } from "./routes/agents/index.ts";
import { attestationRoutes } from "./routes/attestations/index.ts";
import { authRoutes } from "./routes/auth/index.ts";
import { tokenRoutes } from "./routes/auth/token.ts";
import { claimPageRoutes } from "./routes/claim-page.ts";
import { creditRoutes } from "./routes/credits/index.ts";
import { devRoutes } from "./routes/dev/index.ts";
import { docsRoutes } from "./routes/docs.ts";
import { governanceRoutes } from "./routes/governance/index.ts";
import { insuranceRoutes } from "./routes/insurance/index.ts";
import { marketRoutes } from "./routes/intelligence/market.ts";
import { searchRoutes } from "./routes/intelligence/search.ts";
import { moderationRoutes } from "./routes/moderation/index.ts";
import { organizationRoutes } from "./routes/organizations/index.ts";
import { paymasterRoutes } from "./routes/paymaster/index.ts";
import { agentReportRoutes, reportRoutes } from "./routes/reports/index.ts";
import { reputationRoutes } from "./routes/reputation/index.ts";
import { statsRoutes } from "./routes/reputation/stats.ts";
import { runRoutes } from "./routes/runs/index.ts";
import { stakeRoutes } from "./routes/stake/index.ts";
import { subscriptionRoutes } from "./routes/subscriptions/index.ts";
import { configRoutes } from "./routes/system/config.ts";
import { healthRoutes } from "./routes/system/health.ts";
import { ipfsRoutes } from "./routes/system/ipfs.ts";
import { timeRoutes } from "./routes/system/time.ts";
import { verificationRoutes } from "./routes/verifications/index.ts";
import { webApp } from "./routes/web-app.ts";
import { whiteLabelSite } from "./routes/white-label/index.ts";

/** Paid routes are priced per request instead of rate limited (spec §8). */
const PAID_PATHS = new Set<string>(PRICED_PATHS);

/** Liveness, readiness and metrics: not rate limited, no X-RateLimit-* headers (docs/decisions.md). */
const UNLIMITED_PATHS = new Set(["/health", "/ready", "/metrics"]);

/** Largest accepted request body; profiles and deliverable references are small. */
const MAX_BODY_BYTES = 64 * 1024;

export function createApp(deps: Deps) {
  const app = new OpenAPIHono<AppEnv>();

  app.use("*", httpMetrics(deps.ops.registry, "agenthub"));
  app.use("*", async (c, next) => {
    const requestId = c.req.header("x-request-id")?.slice(0, 64) || randomUUID();
    c.set("deps", deps);
    c.set("requestId", requestId);
    c.header("x-request-id", requestId);
    const started = performance.now();
    await next();
    deps.logger.debug(
      {
        requestId,
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      "request",
    );
  });
  // Before the limiters: a preflight is answered here, and every answer (errors too) carries the CORS headers.
  app.use("*", corsMiddleware(deps.env));
  // X-RateLimit-* on every /api response, also those no limiter counted (errors before it, paid routes).
  app.use("/api/*", rateHeaderFallback);
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: (c) => c.json(errorBody("PAYLOAD_TOO_LARGE", `request body over ${MAX_BODY_BYTES} bytes`), 413),
    }),
  );

  // White-label sites: pages on an organization's subdomain or verified domain (API paths pass through).
  app.use("*", whiteLabelSite);

  // Every public request is counted; by leases, so most of them cost no database write (lib/rate-limit.ts).
  const publicLimit = rateLimit("public", LIMITS.public, { leased: true });
  // An organization key replaces the per-IP public limit with its plan's limit (and counts the org's usage).
  app.use("/api/*", orgKeyMiddleware);
  app.use("/api/*", async (c, next) => (PAID_PATHS.has(c.req.path) || c.get("org") ? next() : publicLimit(c, next)));
  // The public endpoints outside /api (OpenAPI document, /docs, /ipfs/*, the claim page, unknown paths) share the
  // same per-IP allowance and carry its headers. Operators' probes are exempt: /health must answer without the
  // database, and a limited /ready or /metrics would report the limiter, not the service. So are the web app's
  // hashed static files, which a browser caches for a year and which cost no database work.
  app.use("*", async (c, next) =>
    c.req.path === "/api" ||
    c.req.path.startsWith("/api/") ||
    UNLIMITED_PATHS.has(c.req.path) ||
    c.req.path.startsWith("/assets/")
      ? next()
      : publicLimit(c, next),
  );

  mountRoutes(app, { dev: deps.env.LOCAL_CHAIN });

  // The routes are all mounted: the document is made once, with each operation's credentials (lib/openapi-security).
  let document: ReturnType<typeof app.getOpenAPI31Document> | undefined;
  app.get("/openapi.json", (c) => {
    document ??= withSecurity(
      app.getOpenAPI31Document({
        openapi: "3.1.0",
        info: {
          title: "AgentHub API",
          version: "1.0.0",
          description: "Identity, reputation and paid work for AI agents",
        },
      }),
    );
    return c.json(document);
  });
  app.route("/docs", docsRoutes);
  // The web app last: its page URLs are whatever no route above answered.
  app.use("*", webApp);

  app.notFound((c) => c.json(errorBody("NOT_FOUND", `no route for ${c.req.method} ${c.req.path}`), 404));

  // The one error boundary: known errors keep their code, everything else is a logged, generic 500.
  app.onError((error, c) => {
    if (error instanceof ApiError) {
      // The cause (a failed lookup, a relayer refusal) is for the logs, never for the client.
      if (error.cause !== undefined) {
        deps.logger.debug({ requestId: c.get("requestId"), code: error.code, cause: error.cause }, "error cause");
      }
      return c.json(errorBody(error.code, error.message), error.status);
    }
    if (error instanceof HTTPException) {
      const status = error.status;
      const code = status === 400 ? "VALIDATION_ERROR" : status === 413 ? "PAYLOAD_TOO_LARGE" : "HTTP_ERROR";
      return c.json(errorBody(code, error.message || "bad request"), status);
    }
    if (error instanceof RelayerCallError) {
      deps.logger.warn({ requestId: c.get("requestId"), code: error.code, err: error.message }, "relayer error");
      if (error.code === "RECEIPT_TIMEOUT") {
        return c.json(
          errorBody("TX_PENDING", `transaction ${error.txHash ?? ""} not mined yet; retry the request`),
          504,
        );
      }
      if (error.code === "TX_REVERTED" && error.errorName === "EnforcedPause") {
        // The emergency Safe or governance paused the contract (docs/decisions.md, "Emergency pause").
        return c.json(errorBody("CONTRACT_PAUSED", `the contract is paused; try again later (${error.message})`), 503);
      }
      if (error.code === "TX_REVERTED") return c.json(errorBody("TX_REVERTED", error.message), 409);
      if (error.code === "TIMEOUT") {
        return c.json(errorBody("RELAYER_TIMEOUT", "the transaction relayer did not answer in time; retry"), 504);
      }
      return c.json(errorBody("RELAYER_UNAVAILABLE", "the transaction relayer is unavailable"), 503);
    }
    if (isPoolTimeout(error)) {
      deps.logger.warn({ requestId: c.get("requestId") }, "no database connection within the pool timeout");
      c.header("Retry-After", "1");
      return c.json(errorBody("SERVICE_BUSY", "the service is at capacity; retry shortly"), 503);
    }
    deps.logger.error({ requestId: c.get("requestId"), err: error }, "unhandled error");
    return c.json(errorBody("INTERNAL_ERROR", `internal error (request ${c.get("requestId")})`), 500);
  });

  return app;
}

/** What mountRoutes needs of the app (a test records the mounts through it). */
export interface RouteMount {
  route(prefix: string, routes: OpenAPIHono<AppEnv> | Hono<AppEnv>): unknown;
}

/**
 * The route map: each feature's router at its path prefix, paths inside are relative. The folder under routes/ is
 * the operation's OpenAPI tag (test/e2e/route-map.test.ts checks the served document against this map). Order
 * matters only where prefixes share a path: static segments (/register, /claim-info) before /{id}.
 */
export function mountRoutes(app: RouteMount, { dev }: { dev: boolean }): void {
  app.route("/", healthRoutes); // /health, /ready, /metrics
  app.route("/api/config", configRoutes);
  app.route("/api/time", timeRoutes);
  app.route("/api/auth", authRoutes); // /nonce
  app.route("/api/auth", tokenRoutes); // /token
  app.route("/api/agents", agentRoutes);
  app.route("/api/agents", stakeRoutes); // /{id}/stake
  app.route("/api/agents", agentReportRoutes); // /{id}/report, beside the signed reports
  app.route("/api/agents", moderationRoutes); // /{id}/slash
  app.route("/api/runs", runRoutes);
  app.route("/api/activity", activityRoutes);
  app.route("/api/credits", creditRoutes);
  app.route("/ipfs", ipfsRoutes);
  app.route("/api/intelligence", searchRoutes);
  app.route("/api/reputation", reputationRoutes);
  app.route("/api/stats", statsRoutes);
  app.route("/api/intelligence", marketRoutes);
  app.route("/api/verifications", verificationRoutes);
  app.route("/api/attestations", attestationRoutes);
  app.route("/api/organizations", organizationRoutes);
  app.route("/claim", claimPageRoutes);
  app.route("/api/insurance", insuranceRoutes);
  app.route("/api/advanced/governance", governanceRoutes);
  app.route("/api/reports", reportRoutes);
  app.route("/api/subscriptions", subscriptionRoutes);
  app.route("/api/paymaster", paymasterRoutes);
  if (dev) app.route("/api/dev", devRoutes);
}

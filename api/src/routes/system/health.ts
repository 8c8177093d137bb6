// Operations endpoints: /health (liveness), /ready (readiness, 503 with the failing parts), /metrics (Prometheus).
import { metricsEndpoint } from "@agenthub/common/metrics";
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";

const check = z.object({ ok: z.boolean(), error: z.string().optional() });
const readiness = z.object({
  ready: z.boolean(),
  failing: z.array(z.enum(["database", "chain", "relayer", "indexer", "bundler"])),
  checks: z.object({
    database: check,
    chain: check.extend({ headBlock: z.string().optional() }),
    relayer: check.extend({
      address: z.string().optional(),
      pending: z.number().int().optional(),
      balanceWei: z.string().nullable().optional(),
      balanceLow: z.boolean().nullable().optional(),
    }),
    indexer: check.extend({
      indexedBlock: z.string().optional(),
      lagBlocks: z.number().int().optional(),
      maxLagBlocks: z.number().int(),
      heartbeatAgeSeconds: z.number().optional(),
      maxHeartbeatAgeSeconds: z.number().int(),
    }),
    bundler: check.extend({ entryPoint: z.string().optional() }).optional(),
  }),
});

const health = createRoute({
  method: "get",
  path: "/health",
  tags: ["system"],
  summary: "Liveness: the process answers (touches no database, chain or relayer)",
  responses: {
    200: {
      description: "The process is alive",
      content: { "application/json": { schema: z.object({ status: z.literal("ok"), uptimeSeconds: z.number() }) } },
    },
  },
});

const ready = createRoute({
  method: "get",
  path: "/ready",
  tags: ["system"],
  summary:
    "Readiness: Postgres, chain RPC, relayer, indexer (alive: heartbeat within " +
    "READY_MAX_INDEXER_HEARTBEAT_AGE_SECONDS; within READY_MAX_INDEXER_LAG_BLOCKS) and, when BUNDLER_URL is set, " +
    "the ERC-4337 bundler all good",
  responses: {
    200: { description: "Ready to serve", content: { "application/json": { schema: readiness } } },
    503: {
      description: "Not ready: `failing` names the parts",
      content: { "application/json": { schema: readiness } },
    },
  },
});

const metrics = createRoute({
  method: "get",
  path: "/metrics",
  tags: ["system"],
  summary: "Prometheus metrics (Authorization: Bearer <METRICS_TOKEN>; off when METRICS_TOKEN is unset)",
  responses: {
    200: { description: "Prometheus text format", content: { "text/plain": { schema: z.string() } } },
    401: { description: "Missing or wrong token" },
    404: { description: "METRICS_TOKEN is not set" },
  },
});

export const healthRoutes = router()
  .openapi(health, (c) => c.json({ status: "ok" as const, uptimeSeconds: Math.round(process.uptime()) }, 200))
  .openapi(ready, async (c) => {
    const result = await c.get("deps").ops.readiness();
    return c.json(result, result.ready ? 200 : 503);
  })
  .openapi(metrics, (c) => {
    const { ops, env } = c.get("deps");
    return metricsEndpoint(ops.registry, env.METRICS_TOKEN)(c) as never;
  });

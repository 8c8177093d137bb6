// The API app as bench/search.ts measures it: createApp(deps) exactly as the server builds it (no background jobs),
// plus two bench-only routes on the same Hono app and middleware stack:
//   GET  /bench/static  unpaid static JSON (the baseline)
//   POST /bench/paid    requirePayment only, handler returns {} (payment verification throughput)
//   GET  /bench/cache   search cache hits and misses of this process
//   GET  /bench/cpu     this process's CPU time so far (µs, user + system): CPU per request, which a shared machine
//                       disturbs far less than requests per second

import { createRequire } from "node:module";
import { createApp } from "../api/src/app.ts";
import type { Deps } from "../api/src/context.ts";
import { createPool } from "../api/src/db/pool.ts";
import { loadApiEnv } from "../api/src/env.ts";
import { requirePayment } from "../api/src/payments/index.ts";
import { createDeps } from "../api/src/server.ts";

// The API package's own dependencies (this file lives outside it).
const apiRequire = createRequire(new URL("../api/package.json", import.meta.url));
const { serve } = apiRequire("@hono/node-server") as {
  serve(options: { fetch: typeof app.fetch; hostname: string; port: number }, listening: () => void): unknown;
};
const pino = apiRequire("pino") as (options: { level: string }) => Deps["logger"];

const env = loadApiEnv();
const pool = createPool(env.DATABASE_URL, Number(process.env.BENCH_POOL_SIZE ?? 20));
const deps = createDeps(env, pool, pino({ level: env.LOG_LEVEL }));
const app = createApp(deps);
const staticBody = { status: "ok", service: "agenthub", version: "1.0.0" };
app.get("/bench/static", (c) => c.json(staticBody));
app.get("/bench/cache", (c) => c.json(deps.search.stats()));
app.get("/bench/cpu", (c) => {
  const { user, system } = process.cpuUsage();
  return c.json({ micros: user + system });
});
app.post("/bench/paid", requirePayment("/api/intelligence/search"), (c) => c.json({ paid: c.get("payment").nonce }));
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: env.PORT }, () => {
  console.log(`bench API on ${env.PORT} (signature recovery: ${deps.payments.recoverer})`);
});
process.on("SIGTERM", async () => {
  await pool.end();
  process.exit(0);
});

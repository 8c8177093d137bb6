// The API app as bench/search.ts measures it: createApp(deps) exactly as the server builds it (no background jobs),
// plus two bench-only routes on the same Hono app and middleware stack:
//   GET  /bench/static  unpaid static JSON (the baseline)
//   POST /bench/paid    requirePayment only, handler returns {} (payment verification throughput)
//   GET  /bench/cache   search cache hits and misses of this process

import { createRequire } from "node:module";
import { agentHubChain, loadDeployments } from "@agenthub/common";
import { RelayerClient } from "@agenthub/relayer/client";
import { createPublicClient, http } from "viem";
import { createApp } from "../api/src/app.ts";
import type { Deps } from "../api/src/context.ts";
import { createPool } from "../api/src/db/pool.ts";
import { loadApiEnv } from "../api/src/env.ts";
import { IpfsStore } from "../api/src/lib/ipfs.ts";
import { KeyStore } from "../api/src/lib/keystore.ts";
import { RateLimiter } from "../api/src/lib/rate-limit.ts";
import { Operations } from "../api/src/ops/operations.ts";
import { paymentGate, requirePayment } from "../api/src/payments/index.ts";
import { searchCacheStats } from "../api/src/routes/intelligence/search.ts";

// The API package's own dependencies (this file lives outside it).
const apiRequire = createRequire(new URL("../api/package.json", import.meta.url));
const { serve } = apiRequire("@hono/node-server") as {
  serve(options: { fetch: typeof app.fetch; hostname: string; port: number }, listening: () => void): unknown;
};
const pino = apiRequire("pino") as (options: { level: string }) => Deps["logger"];

const env = loadApiEnv();
const pool = createPool(env.DATABASE_URL, Number(process.env.BENCH_POOL_SIZE ?? 20));
const chain = createPublicClient({ chain: agentHubChain(env.RPC_URL), transport: http(env.RPC_URL) });
const relayer = new RelayerClient(env.RELAYER_URL, env.RELAYER_TOKEN);
const deps: Deps = {
  env,
  pool,
  deployments: loadDeployments(env.DEPLOYMENTS_FILE),
  chain,
  relayer,
  logger: pino({ level: env.LOG_LEVEL }),
  rateLimiter: new RateLimiter(pool, env.RATE_LIMIT_MULTIPLIER),
  keys: new KeyStore(env.KEY_ENCRYPTION_KEY),
  ipfs: new IpfsStore(pool, env.IPFS_API_URL),
  ops: new Operations(env, chain, relayer, pool),
};
const app = createApp(deps);
const staticBody = { status: "ok", service: "agenthub", version: "1.0.0" };
app.get("/bench/static", (c) => c.json(staticBody));
app.get("/bench/cache", (c) => c.json(searchCacheStats(deps)));
app.post("/bench/paid", requirePayment("/api/intelligence/search"), (c) => c.json({ paid: c.get("payment").nonce }));
serve({ fetch: app.fetch, hostname: "127.0.0.1", port: env.PORT }, () => {
  console.log(`bench API on ${env.PORT} (signature recovery: ${paymentGate(deps).recoverer})`);
});
process.on("SIGTERM", async () => {
  await pool.end();
  process.exit(0);
});

import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { agentHubChain, loadDeployments, rpcTransport, rpcUrls } from "@agenthub/common";
import { RelayerClient } from "@agenthub/relayer/client";
import { serve } from "@hono/node-server";
import type pg from "pg";
import pino, { type Logger } from "pino";
import { createPublicClient, type Hex } from "viem";
import { createApp } from "./app.ts";
import type { Deps } from "./context.ts";
import { migrate } from "./db/migrate.ts";
import { createPool } from "./db/pool.ts";
import type { ApiEnv } from "./env.ts";
import { startJobs } from "./jobs/index.ts";
import { IndexerProgress } from "./lib/indexer-progress.ts";
import { IpfsStore } from "./lib/ipfs.ts";
import { KeyStore } from "./lib/keystore.ts";
import { RateLimiter } from "./lib/rate-limit.ts";
import { Operations } from "./ops/operations.ts";
import { Paymaster } from "./paymaster/paymaster.ts";
import { closeSearch } from "./routes/intelligence/search.ts";

export interface RunningApi {
  url: string;
  deps: Deps;
  close(): Promise<void>;
}

/** Everything a request needs, built once per process (the server and the benchmark servers share this). */
export function createDeps(env: ApiEnv, pool: pg.Pool, logger: Logger): Deps {
  const urls = rpcUrls(env);
  const chain = createPublicClient({
    chain: agentHubChain(urls[0]!),
    transport: rpcTransport(urls),
    pollingInterval: 100,
  });
  const relayer = new RelayerClient(env.RELAYER_URL, env.RELAYER_TOKEN, {
    timeoutMs: env.RELAYER_TIMEOUT_MS,
    statusTimeoutMs: env.READY_TIMEOUT_MS,
  });
  const deployments = loadDeployments(env.DEPLOYMENTS_FILE);
  const ops = new Operations(env, chain, relayer, pool, deployments);
  return {
    env,
    pool,
    deployments,
    chain,
    relayer,
    logger,
    rateLimiter: new RateLimiter(pool, env.RATE_LIMIT_MULTIPLIER),
    keys: new KeyStore(env.KEY_ENCRYPTION_KEY),
    ipfs: new IpfsStore(pool, env.IPFS_API_URL),
    indexer: new IndexerProgress(pool, env.INDEXER_SCHEMA),
    ops,
    paymaster: env.PAYMASTER_SIGNER_KEY
      ? new Paymaster(
          { env, pool, opsPool: ops.pool, deployments, chain, logger },
          env.PAYMASTER_SIGNER_KEY as Hex,
          ops.registry,
        )
      : undefined,
  };
}

export async function startApi(env: ApiEnv, port = env.PORT): Promise<RunningApi> {
  const logger = pino({ level: env.LOG_LEVEL, redact: ["privateKey", "*.privateKey", "signature", "authorization"] });
  const pool = createPool(env.DATABASE_URL, env.DATABASE_POOL_SIZE);
  await migrate(pool);
  const deps = createDeps(env, pool, logger);
  if (env.RATE_LIMIT_MULTIPLIER !== 1) logger.warn({ multiplier: env.RATE_LIMIT_MULTIPLIER }, "rate limits are scaled");
  const app = createApp(deps);
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: env.HOST, port }, () => resolve(s as Server));
  });
  const actual = (server.address() as AddressInfo).port;
  // Background jobs (uptime, reputation, verification expiry) on the pg-boss queue, after migrations.
  const jobs = env.JOBS_ENABLED ? await startJobs(deps) : undefined;
  const stopDepositWatch = deps.paymaster?.watchDeposit();
  return {
    url: `http://127.0.0.1:${actual}`,
    deps,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs?.stop();
      stopDepositWatch?.();
      await closeSearch(deps);
      deps.indexer.close();
      await deps.ops.close();
      await pool.end();
    },
  };
}

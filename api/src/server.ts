import { Resolver } from "node:dns/promises";
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
import { chainViews, createDb } from "./db/index.ts";
import { migrate } from "./db/migrate.ts";
import { createPool } from "./db/pool.ts";
import type { ApiEnv } from "./env.ts";
import { startJobs } from "./jobs/index.ts";
import { AccountCode } from "./lib/account-code.ts";
import { Arbiter } from "./lib/arbiter.ts";
import { ChainClock } from "./lib/chain-time.ts";
import { ConstantReads } from "./lib/constant-reads.ts";
import { IndexerProgress } from "./lib/indexer-progress.ts";
import { KeyStore } from "./lib/keystore.ts";
import { ProtocolParamsReader } from "./lib/protocol.ts";
import { RateLimiter } from "./lib/rate-limit.ts";
import { MintBatcher } from "./mints/mint-batcher.ts";
import { Operations } from "./ops/operations.ts";
import { Paymaster } from "./paymaster/paymaster.ts";
import { createPaymentGate } from "./payments/middleware.ts";
import { type UndoTable, undoUnpaid } from "./payments/unpaid.ts";
import { IpfsStore } from "./stores/ipfs.ts";
import { createReadCache } from "./stores/read-cache.ts";
import { undoUnpaidAttestation } from "./use-cases/attestations/undo-unpaid-attestation.ts";
import { AgentSearch } from "./use-cases/search/agent-search.ts";

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
  const db = createDb(pool);
  const views = chainViews(env.INDEXER_SCHEMA);
  const clock = new ChainClock(chain);
  const params = new ProtocolParamsReader(chain, deployments, clock);
  const ops = new Operations(env, chain, relayer, pool, deployments, views);
  const indexer = new IndexerProgress(pool, views.names.ponderCheckpoint);
  const reads = createReadCache({
    databaseUrl: env.DATABASE_URL,
    indexerSchema: env.INDEXER_SCHEMA,
    ttlMs: env.READ_CACHE_TTL_MS,
    maxEntries: env.READ_CACHE_ENTRIES,
    logger,
  });
  // A write that waited for its block answers after this: no read that follows it is served from before the block.
  indexer.onAdvance(() => reads.invalidate());
  const accountCode = deployments.accountAbstraction
    ? new AccountCode(chain, deployments.accountAbstraction)
    : undefined;
  const deps: Deps = {
    env,
    pool,
    db,
    views,
    deployments,
    chain,
    relayer,
    logger,
    rateLimiter: new RateLimiter(pool, env.RATE_LIMIT_MULTIPLIER),
    keys: new KeyStore(env.KEY_ENCRYPTION_KEY),
    ipfs: new IpfsStore(pool, env.IPFS_API_URL),
    clock,
    params,
    reads,
    constants: new ConstantReads(chain, deployments),
    search: new AgentSearch(env, pool, views.names, logger),
    indexer,
    // The lease covers a wait for a batch: at most the relayer's answer time for the batch ahead, plus margin.
    mints: new MintBatcher(pool, relayer, Math.ceil(env.RELAYER_TIMEOUT_MS / 1000) + 30),
    ops,
    accountCode,
    paymaster: env.PAYMASTER_SIGNER_KEY
      ? new Paymaster(
          { env, pool, opsPool: ops.pool, deployments, chain, logger, db, views, clock, params, accountCode },
          env.PAYMASTER_SIGNER_KEY as Hex,
          ops.registry,
        )
      : undefined,
    payments: createPaymentGate({ env, pool, chain, relayer, deployments, logger }, (unpaid) =>
      undoUnpaid(deps, PAID_UNDOS, unpaid),
    ),
    dns: dnsResolver(env),
    arbiter: env.ARBITER_PRIVATE_KEY
      ? new Arbiter(
          chain,
          env.ARBITER_PRIVATE_KEY as Hex,
          deployments.contracts.RunEscrow.address,
          env.RELAYER_TIMEOUT_MS,
        )
      : undefined,
  };
  return deps;
}

/** Paid routes whose side effects are undone when their payment never settles. */
const PAID_UNDOS: UndoTable = { "/api/attestations/create": undoUnpaidAttestation };

function dnsResolver(env: ApiEnv): Resolver {
  const resolver = new Resolver({ timeout: env.DNS_TIMEOUT_MS, tries: 2 });
  if (env.DNS_SERVER) resolver.setServers([env.DNS_SERVER]);
  return resolver;
}

export async function startApi(env: ApiEnv, port = env.PORT): Promise<RunningApi> {
  const logger = pino({ level: env.LOG_LEVEL, redact: ["privateKey", "*.privateKey", "signature", "authorization"] });
  const pool = createPool(env.DATABASE_URL, env.DATABASE_POOL_SIZE, env.DATABASE_CONNECT_TIMEOUT_MS);
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
  const stopReconciler = deps.payments.startReconciler(env.PAYMENT_RECONCILE_INTERVAL_MS);
  return {
    url: `http://127.0.0.1:${actual}`,
    deps,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await jobs?.stop();
      stopDepositWatch?.();
      stopReconciler();
      await deps.search.close();
      await deps.reads.close();
      deps.indexer.close();
      await deps.ops.close();
      await pool.end();
    },
  };
}

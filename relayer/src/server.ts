import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadDeployments, rpcTransport, rpcUrls } from "@agenthub/common";
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import { createRegistry } from "@agenthub/common/metrics";
import { serve } from "@hono/node-server";
import pg from "pg";
import pino, { type Logger } from "pino";
import { type Address, encodeFunctionData, type Hex } from "viem";
import { createRelayerApp } from "./app.ts";
import type { RelayerEnv } from "./env.ts";
import { errorMessage } from "./errors.ts";
import { Relayer } from "./relayer.ts";
import { TxStore } from "./store.ts";

export interface RunningRelayer {
  url: string;
  relayer: Relayer;
  close(): Promise<void>;
}

const PROBE_TIMEOUT_MS = 2_000;

async function probe(what: () => Promise<unknown>): Promise<{ ok: boolean; error?: string }> {
  try {
    await Promise.race([
      what(),
      new Promise((_, reject) => setTimeout(() => reject(new Error("timed out")), PROBE_TIMEOUT_MS).unref()),
    ]);
    return { ok: true };
  } catch (error) {
    return { ok: false, error: errorMessage(error) };
  }
}

export async function startRelayer(
  env: RelayerEnv,
  port = env.RELAYER_PORT,
  logger: Logger = pino({ level: env.LOG_LEVEL, base: { service: "relayer" } }),
): Promise<RunningRelayer> {
  const deployments = loadDeployments(env.DEPLOYMENTS_FILE);
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 5 });
  pool.on("error", (err) => logger.warn({ err: err.message }, "idle postgres client error"));
  const store = new TxStore(pool);
  const applied = await store.migrate();
  if (applied.length) logger.info({ applied }, "relayer migrations applied");
  const registry = createRegistry("relayer");
  const urls = rpcUrls(env);
  const relayer = new Relayer({
    rpcUrls: urls,
    transport: rpcTransport(urls),
    privateKey: env.RELAYER_PRIVATE_KEY as Hex,
    deployments,
    store,
    logger,
    registry,
    receiptTimeoutMs: env.RECEIPT_TIMEOUT_MS,
    pollIntervalMs: env.RELAYER_POLL_INTERVAL_MS ?? (env.LOCAL_CHAIN ? 50 : 1_000),
    replaceAfterBlocks: env.RELAYER_REPLACE_AFTER_BLOCKS,
    replaceAfterMs: env.RELAYER_REPLACE_AFTER_SECONDS * 1000,
    feeBumpPercent: env.RELAYER_FEE_BUMP_PERCENT,
    maxFeePerGas: env.RELAYER_MAX_FEE_PER_GAS_WEI,
    minBalanceWei: env.RELAYER_MIN_BALANCE_WEI,
  });
  await relayer.start();
  const faucet = env.LOCAL_CHAIN
    ? async (address: Address, usdc: bigint, eth: bigint) => {
        const out: { usdcTx?: string; ethTx?: string } = {};
        if (usdc > 0n) {
          // TestUSDC has an open mint; the relayer sends it like any other transaction.
          const data = encodeFunctionData({ abi: TestUSDCAbi, functionName: "mint", args: [address, usdc] });
          out.usdcTx = await relayer.sendRaw(deployments.usdc.address, data);
        }
        if (eth > 0n) out.ethTx = await relayer.sendValue(address, eth);
        return out;
      }
    : undefined;
  const app = createRelayerApp({
    relayer,
    token: env.RELAYER_TOKEN,
    faucet,
    logger,
    registry,
    metricsToken: env.METRICS_TOKEN,
    probe: async () => {
      const [database, chain] = await Promise.all([
        probe(() => pool.query("select 1")),
        probe(() => relayer.publicClient.getBlockNumber({ cacheTime: 0 })),
      ]);
      return { database, chain };
    },
  });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: env.RELAYER_HOST, port }, () => resolve(s as Server));
  });
  const actualPort = (server.address() as AddressInfo).port;
  logger.info({ address: relayer.address, rpc: urls.length, chainId: deployments.chainId }, "relayer started");
  return {
    url: `http://${env.RELAYER_HOST}:${actualPort}`,
    relayer,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await relayer.stop();
      await pool.end();
    },
  };
}

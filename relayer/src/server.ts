import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { loadDeployments } from "@agenthub/common";
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import { serve } from "@hono/node-server";
import pg from "pg";
import { type Address, encodeFunctionData, type Hex } from "viem";
import { createRelayerApp } from "./app.ts";
import type { RelayerEnv } from "./env.ts";
import { Relayer } from "./relayer.ts";
import { TxStore } from "./store.ts";

export interface RunningRelayer {
  url: string;
  relayer: Relayer;
  close(): Promise<void>;
}

export async function startRelayer(env: RelayerEnv, port = env.RELAYER_PORT): Promise<RunningRelayer> {
  const deployments = loadDeployments(env.DEPLOYMENTS_FILE);
  const pool = new pg.Pool({ connectionString: env.DATABASE_URL, max: 5 });
  const store = new TxStore(pool);
  await store.migrate();
  const relayer = new Relayer({
    rpcUrl: env.RPC_URL,
    privateKey: env.RELAYER_PRIVATE_KEY as Hex,
    deployments,
    store,
    receiptTimeoutMs: env.RECEIPT_TIMEOUT_MS,
  });
  await relayer.reconcile();
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
  const app = createRelayerApp({ relayer, token: env.RELAYER_TOKEN, faucet });
  const server = await new Promise<Server>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: env.RELAYER_HOST, port }, () => resolve(s as Server));
  });
  const actualPort = (server.address() as AddressInfo).port;
  return {
    url: `http://${env.RELAYER_HOST}:${actualPort}`,
    relayer,
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await pool.end();
    },
  };
}

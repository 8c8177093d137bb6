// A real chain and a real database for the relayer's own tests: a Hardhat (EDR) node with the contracts the local
// Ignition module deploys (the same as `npm start`), and Postgres: a fresh database on TEST_DATABASE_URL's server
// when that is set (e.g. a machine's own Postgres), else an embedded Postgres in a temporary folder (the one the
// end-to-end stack uses), so `npm test` needs nothing installed. The relayer runs as `startRelayer` starts it.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Deployments } from "@agenthub/common";
import pg from "pg";
import pino from "pino";
import { createPublicClient, createWalletClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts, startHardhatNode } from "../../../scripts/lib/chain.ts";
import { deployLocal } from "../../../scripts/lib/deploy.ts";
import { startEmbeddedPostgres } from "../../../scripts/lib/postgres.ts";
import { freePort } from "../../../scripts/lib/stack.ts";
import { loadRelayerEnv, type RelayerEnv } from "../../src/env.ts";
import { type RunningRelayer, startRelayer } from "../../src/server.ts";
import { TxStore } from "../../src/store.ts";

export interface Harness {
  rpcUrl: string;
  databaseUrl: string;
  deployments: Deployments;
  env: RelayerEnv;
  /** A pool on the relayer's database, for reading its rows. */
  db: pg.Pool;
  store: TxStore;
  publicClient: ReturnType<typeof createPublicClient>;
  /** The relayer's key as a plain wallet: a sender the relayer does not know about. */
  outsider: ReturnType<typeof createWalletClient>;
  /** Starts a relayer process's worth of state (call again after `close()` for a restart). */
  startRelayer(): Promise<RunningRelayer>;
  stop(): Promise<void>;
}

export const relayerAccount = privateKeyToAccount(devAccounts.relayer);

export async function startHarness(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), "agenthub-relayer-test-"));
  const stops: (() => Promise<unknown>)[] = [];
  const stop = async () => {
    for (const s of stops.splice(0).reverse()) await s().catch(() => {});
    rmSync(dir, { recursive: true, force: true });
  };
  try {
    const node = await startHardhatNode({ port: await freePort() });
    stops.push(() => node.stop(5_000));
    const deploymentsFile = join(dir, "deployments.json");
    const deployments = await deployLocal({
      network: "localhost",
      rpcUrl: node.rpcUrl,
      relayer: relayerAccount.address,
      deploymentDir: join(dir, "ignition"),
      outFile: deploymentsFile,
    });
    const databaseUrl = await testDatabase(dir, stops);
    const env = loadRelayerEnv({
      RPC_URL: node.rpcUrl,
      DATABASE_URL: databaseUrl,
      DEPLOYMENTS_FILE: deploymentsFile,
      RELAYER_PRIVATE_KEY: devAccounts.relayer,
      RELAYER_TOKEN: "relayer-test-token-0123456789",
      LOCAL_CHAIN: "true",
      RECEIPT_TIMEOUT_MS: "20000",
      LOG_LEVEL: "silent",
    });
    const db = new pg.Pool({ connectionString: databaseUrl, max: 2 });
    stops.push(() => db.end());
    const running: RunningRelayer[] = [];
    stops.push(() => Promise.all(running.map((r) => r.close().catch(() => {}))));
    return {
      rpcUrl: node.rpcUrl,
      databaseUrl,
      deployments,
      env,
      db,
      store: new TxStore(db),
      publicClient: createPublicClient({ transport: http(node.rpcUrl) }),
      outsider: createWalletClient({ account: relayerAccount, transport: http(node.rpcUrl) }),
      async startRelayer() {
        const r = await startRelayer(env, 0, pino({ level: "silent" }));
        running.push(r);
        return r;
      },
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A database of its own: on TEST_DATABASE_URL's server (dropped at the end), else an embedded Postgres. */
async function testDatabase(dir: string, stops: (() => Promise<unknown>)[]): Promise<string> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) {
    const embedded = await startEmbeddedPostgres({ dir: join(dir, "pg"), port: await freePort() });
    stops.push(() => embedded.stop());
    return embedded.url;
  }
  const name = `relayer_test_${process.pid}_${Date.now()}`;
  const admin = new pg.Client({ connectionString: server });
  await admin.connect();
  await admin.query(`create database ${name}`);
  await admin.end();
  stops.push(async () => {
    const c = new pg.Client({ connectionString: server });
    await c.connect();
    await c.query(`drop database if exists ${name} with (force)`);
    await c.end();
  });
  const url = new URL(server);
  url.pathname = `/${name}`;
  return url.toString();
}

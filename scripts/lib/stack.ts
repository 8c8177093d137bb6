// Brings up the whole local stack: chain, contracts, Postgres, indexer, relayer, API.
// Used by `npm start` (scripts/stack.ts) and by the end-to-end tests, so both exercise the same wiring.
import { randomBytes } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { join } from "node:path";
import { type Deployments, loadDeployments, refuseSharedSigner } from "@agenthub/common";
import pg from "pg";
import { privateKeyToAccount } from "viem/accounts";
import { startBundler } from "./bundler.ts";
import { devAccounts, repoRoot, startHardhatNode } from "./chain.ts";
import { deployLocal } from "./deploy.ts";
import { startEmbeddedPostgres } from "./postgres.ts";
import { FatalWait, type Managed, startProcess, waitFor } from "./process.ts";
import { type Supervised, supervise } from "./supervise.ts";

export interface StackOptions {
  dataDir: string;
  apiPort?: number;
  chainPort?: number;
  pgPort?: number;
  relayerPort?: number;
  indexerPort?: number;
  /** The local ERC-4337 bundler (Alto), started with a local chain only. */
  bundlerPort?: number;
  /** External services; without them an embedded Postgres and a local Hardhat node are started. */
  databaseUrl?: string;
  rpcUrl?: string;
  quiet?: boolean;
  /** Extra env for the API process (e.g. shorter job intervals in tests). */
  apiEnv?: Record<string, string>;
  /** Where the deployment addresses are written (default: <dataDir>/deployments/localhost.json). */
  deploymentsFile?: string;
  /** Contracts already deployed (e.g. deployments/baseSepolia.json with `rpcUrl`): nothing is deployed. */
  existingDeploymentsFile?: string;
  /** The relayer's signing key (default: Hardhat's development account #1, the local parameters' relayer). */
  relayerKey?: `0x${string}`;
  log?: (msg: string) => void;
  /** Aborting it stops a start in progress (Ctrl-C during start-up): what already runs is stopped, start rejects. */
  signal?: AbortSignal;
  /** A service that keeps crashing is given up (scripts/lib/supervise.ts): the caller stops the stack loudly. */
  onServiceGivenUp?: (name: string) => void;
}

export interface Stack {
  apiUrl: string;
  rpcUrl: string;
  databaseUrl: string;
  relayerUrl: string;
  indexerUrl: string;
  /** The ERC-4337 bundler (local Alto), or BUNDLER_URL for an existing deployment; undefined without one. */
  bundlerUrl?: string;
  deployments: Deployments;
  deploymentsFile: string;
  secrets: Secrets;
  env: Record<string, string>;
  /** The supervised services (restarted when they crash): relayer, indexer, bundler (local chain), api. */
  services: Supervised[];
  stop(): Promise<void>;
}

interface Secrets {
  keyEncryptionKey: string;
  adminToken: string;
  relayerToken: string;
  /** Bearer token for /metrics of the API and the relayer. */
  metricsToken: string;
  /** Approves the paymaster's gas sponsorships: never the relayer's key (docs/decisions.md, "Paymaster"). */
  paymasterSignerKey: `0x${string}`;
}

/** Everything stopped within this (Ctrl-C promises free ports within 15 s; the rest is the exit itself). */
export const STOP_BUDGET_MS = 12_000;
/** What services get between SIGTERM and SIGKILL; they close in well under a second when healthy. */
const SERVICE_GRACE_MS = 5_000;

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** What the stack reads of the API's GET /ready answer. */
interface ReadyBody {
  failing?: string[];
  checks?: { chain?: { headBlock?: string }; indexer?: { indexedBlock?: string } };
}

/**
 * While the API waits for the indexer to catch up: "indexer at block x of y", when it moved, at most every 2 s
 * (a live network's backfill can take minutes; a fresh local chain is caught up at once).
 */
function indexerProgress(log: (msg: string) => void, everyMs = 2_000): (body: ReadyBody) => void {
  let last = "";
  let at = 0;
  return (body) => {
    const indexed = body.checks?.indexer?.indexedBlock;
    const head = body.checks?.chain?.headBlock;
    if (indexed === undefined || head === undefined) return;
    const line = `indexer    at block ${indexed} of ${head}`;
    if (line === last || Date.now() - at < everyMs) return;
    last = line;
    at = Date.now();
    log(line);
  };
}

/** Local secrets are generated once under the data folder (never committed); production sets them in env. */
function localSecrets(dataDir: string): Secrets {
  const file = join(dataDir, "secrets.json");
  const known: Partial<Secrets> = existsSync(file) ? JSON.parse(readFileSync(file, "utf8")) : {};
  const token = () => randomBytes(24).toString("base64url");
  const secrets: Secrets = {
    keyEncryptionKey: known.keyEncryptionKey ?? `0x${randomBytes(32).toString("hex")}`,
    adminToken: known.adminToken ?? token(),
    relayerToken: known.relayerToken ?? token(),
    metricsToken: known.metricsToken ?? token(),
    paymasterSignerKey: known.paymasterSignerKey ?? `0x${randomBytes(32).toString("hex")}`,
  };
  // Written again only when a secret was missing (a data folder from before it existed).
  if (Object.keys(known).length !== Object.keys(secrets).length) {
    writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  }
  return secrets;
}

/** A new local chain invalidates everything derived from the old one: start from an empty database. */
async function resetDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const dbName = target.pathname.slice(1);
  const admin = new URL(url);
  admin.pathname = "/postgres";
  const client = new pg.Client({ connectionString: admin.toString() });
  await client.connect();
  try {
    await client.query(`drop database if exists "${dbName}" with (force)`);
    await client.query(`create database "${dbName}"`);
  } finally {
    await client.end();
  }
}

export async function startStack(opts: StackOptions): Promise<Stack> {
  const log = opts.log ?? ((msg: string) => console.log(msg));
  mkdirSync(opts.dataDir, { recursive: true });
  // Services (API, indexer, relayer, bundler) stop together first, then what they use (chain, Postgres), all under
  // one deadline: services get SERVICE_GRACE_MS before SIGKILL, the chain and Postgres what is left of
  // STOP_BUDGET_MS (at least a second), so Ctrl-C frees every port within 15 s whatever hangs.
  type Stop = (killAfterMs: number) => Promise<void>;
  const serviceStops: Stop[] = [];
  const infraStops: Stop[] = [];
  const stopAll = async () => {
    const deadline = Date.now() + STOP_BUDGET_MS;
    await Promise.all(serviceStops.splice(0).map((stop) => stop(SERVICE_GRACE_MS).catch(() => {})));
    const left = Math.max(1_000, deadline - Date.now());
    await Promise.all(infraStops.splice(0).map((stop) => stop(left).catch(() => {})));
  };
  const signal = opts.signal;
  // Started in the background; a failed start waits for it to settle so that it is stopped too.
  let bundler: Promise<Managed & { url: string }> | undefined;
  try {
    const secrets = localSecrets(opts.dataDir);

    let rpcUrl = opts.rpcUrl;
    if (!rpcUrl) {
      const node = await startHardhatNode({ port: opts.chainPort ?? (await freePort()), quiet: true });
      infraStops.push((ms) => node.stop(ms));
      rpcUrl = node.rpcUrl;
      log(`chain      ${rpcUrl} (Hardhat EDR, chain id 84532)`);
    }

    let databaseUrl = opts.databaseUrl;
    if (!databaseUrl) {
      const db = await startEmbeddedPostgres({
        dir: join(opts.dataDir, "pg"),
        port: opts.pgPort ?? (await freePort()),
        log,
      });
      infraStops.push((ms) => db.stop(ms));
      databaseUrl = db.url;
    }
    signal?.throwIfAborted();
    if (!opts.rpcUrl) await resetDatabase(databaseUrl);
    log(`postgres   ${databaseUrl.replace(/:[^:@/]+@/, ":***@")}`);

    const relayerKey = opts.relayerKey ?? devAccounts.relayer;
    // The paymaster approves with a key of its own, never the relayer's: refused before anything is deployed.
    refuseSharedSigner(
      opts.existingDeploymentsFile
        ? (opts.apiEnv?.PAYMASTER_SIGNER_KEY ?? process.env.PAYMASTER_SIGNER_KEY)
        : secrets.paymasterSignerKey,
      relayerKey,
    );
    let deploymentsFile = opts.deploymentsFile ?? join(opts.dataDir, "deployments", "localhost.json");
    let deployments: Deployments;
    if (opts.existingDeploymentsFile) {
      deploymentsFile = opts.existingDeploymentsFile;
      deployments = loadDeployments(deploymentsFile);
      log(`contracts  ${deployments.network} (chain ${deployments.chainId}) from ${deploymentsFile}`);
    } else {
      const started = Date.now();
      log("deploy     deploying contracts (Ignition module AgentHubLocal)…");
      deployments = await deployLocal({
        network: "localhost",
        rpcUrl,
        relayer: privateKeyToAccount(relayerKey).address,
        paymasterSigner: privateKeyToAccount(secrets.paymasterSignerKey).address,
        deploymentDir: join(opts.dataDir, "ignition", "localhost"),
        outFile: deploymentsFile,
        log: (msg) => log(`deploy     ${msg}`),
      });
      signal?.throwIfAborted();
      log(`contracts  deployed with Ignition in ${Date.now() - started} ms, see ${deploymentsFile}`);
    }

    const relayerPort = opts.relayerPort ?? (await freePort());
    const indexerPort = opts.indexerPort ?? (await freePort());
    const apiPort = opts.apiPort ?? (await freePort());
    const env: Record<string, string> = {
      DATABASE_URL: databaseUrl,
      RPC_URL: rpcUrl,
      DEPLOYMENTS_FILE: deploymentsFile,
      LOCAL_CHAIN: "true",
      RELAYER_PRIVATE_KEY: relayerKey,
      RELAYER_TOKEN: secrets.relayerToken,
      RELAYER_PORT: String(relayerPort),
      RELAYER_URL: `http://127.0.0.1:${relayerPort}`,
      ADMIN_TOKEN: secrets.adminToken,
      METRICS_TOKEN: secrets.metricsToken,
      KEY_ENCRYPTION_KEY: secrets.keyEncryptionKey,
      PLATFORM_RECIPIENT_ADDRESS: deployments.treasury,
      INDEXER_SCHEMA: "chain",
      PORT: String(apiPort),
      PUBLIC_URL: `http://localhost:${apiPort}`,
      PONDER_TELEMETRY_DISABLED: "true",
      LOG_LEVEL: process.env.LOG_LEVEL ?? "info",
      ...opts.apiEnv,
    };
    // A local deployment's paymaster approves with the generated key; an existing one brings its own (.env).
    if (!opts.existingDeploymentsFile) env.PAYMASTER_SIGNER_KEY = secrets.paymasterSignerKey;
    // The local deployment's arbiter (ARBITER_ROLE on RunEscrow): the admin resolve route sends through it.
    if (!opts.existingDeploymentsFile) env.ARBITER_PRIVATE_KEY = devAccounts.arbiter;

    const tsx = join(repoRoot, "node_modules", ".bin", "tsx");
    const quiet = opts.quiet ?? false;
    const services: Supervised[] = [];
    /** Starts a service and waits until `up` answers (or it exits: FatalWait); a failed start stops it again. */
    const startService = async (
      name: string,
      cmd: string,
      args: string[],
      cwd: string,
      up: () => Promise<boolean>,
      { extraEnv = {}, timeoutMs = 60_000 }: { extraEnv?: Record<string, string>; timeoutMs?: number } = {},
    ): Promise<Managed> => {
      const proc = startProcess(name, cmd, args, { cwd, env: { ...env, ...extraEnv }, quiet });
      try {
        await waitFor(
          name,
          async () => {
            if (proc.child.exitCode !== null || proc.child.signalCode !== null) {
              throw new FatalWait(`${name} exited with ${proc.child.exitCode ?? proc.child.signalCode}`);
            }
            return (await up()) || undefined;
          },
          { timeoutMs, signal },
        );
      } catch (error) {
        await proc.stop(SERVICE_GRACE_MS);
        throw error;
      }
      return proc;
    };
    /** From now on `first` is restarted by `restart` whenever it exits on its own, and stopped with the stack. */
    const supervised = (name: string, first: Managed, restart: () => Promise<Managed>): Supervised => {
      const service = supervise(name, first, restart, { log, onGiveUp: opts.onServiceGivenUp });
      services.push(service);
      serviceStops.push((ms) => service.stop(ms));
      return service;
    };
    const answers = async (url: string) => (await fetch(url)).ok;

    // The bundler starts first and comes up while the relayer and the indexer do (it is ready in ~2 s).
    const aa = deployments.accountAbstraction;
    const bundlerPort = opts.bundlerPort ?? (await freePort());
    const launchBundler = () => startBundler({ rpcUrl, entryPoint: aa!.entryPoint, port: bundlerPort, quiet, signal });
    bundler =
      !opts.rpcUrl && aa
        ? launchBundler().then((b) => {
            supervised("bundler", b, launchBundler);
            return b;
          })
        : undefined;
    // Every rejection is observed at once (an aborted start must not leave an unhandled one behind).
    bundler?.catch(() => {});

    const launchRelayer = () =>
      startService("relayer", tsx, ["src/main.ts"], join(repoRoot, "relayer"), () =>
        answers(`${env.RELAYER_URL}/health`),
      );
    supervised("relayer", await launchRelayer(), launchRelayer);
    log(`relayer    ${env.RELAYER_URL}`);

    // A fresh deployment schema each start (Ponder cannot reuse a schema across builds); readers use the views.
    // A restart after a crash reuses the schema: Ponder recovers from its checkpoint (rows after it are rolled back and
    // indexed again), after waiting out the dead process's lock (its heartbeat, at most 25 s old).
    const ponderSchema = `ponder_${Date.now().toString(36)}`;
    const launchIndexer = () =>
      startService(
        "indexer",
        join(repoRoot, "indexer", "node_modules", ".bin", "ponder"),
        [
          "start",
          "--schema",
          ponderSchema,
          "--views-schema",
          env.INDEXER_SCHEMA!,
          "--port",
          String(indexerPort),
          "--hostname",
          "127.0.0.1",
        ],
        join(repoRoot, "indexer"),
        () => answers(`http://127.0.0.1:${indexerPort}/health`),
        { extraEnv: { PORT: String(indexerPort) }, timeoutMs: 120_000 }, // Ponder prefers $PORT over --port
      );
    supervised("indexer", await launchIndexer(), launchIndexer);
    log(`indexer    http://127.0.0.1:${indexerPort} (schema ${ponderSchema}, views in "${env.INDEXER_SCHEMA}")`);
    if (bundler) {
      env.BUNDLER_URL = (await bundler).url;
      log(`bundler    ${env.BUNDLER_URL} (Alto, EntryPoint ${aa?.entryPoint})`);
    }

    const apiUrl = `http://127.0.0.1:${apiPort}`;
    const launchApi = () =>
      startService("api", tsx, ["src/main.ts"], join(repoRoot, "api"), () => answers(`${apiUrl}/health`));
    const api = supervised("api", await launchApi(), launchApi);
    // Ready, not just alive: Postgres, chain, relayer and the indexer caught up with the chain head.
    const progress = indexerProgress(log);
    await waitFor(
      "api /ready",
      async () => {
        const { child } = api.current;
        if (child.exitCode !== null || child.signalCode !== null) throw new FatalWait("api exited");
        const res = await fetch(`${apiUrl}/ready`);
        const body = (await res.json()) as ReadyBody;
        progress(body);
        if (res.ok) return true;
        throw new Error(`not ready: ${JSON.stringify(body.failing)}`);
      },
      { timeoutMs: 120_000, signal },
    );
    log(`api        http://localhost:${apiPort}`);
    // Up: from now on a service that exits on its own is restarted (and logged), not left dead.
    for (const service of services) service.arm();

    return {
      apiUrl,
      rpcUrl,
      databaseUrl,
      relayerUrl: env.RELAYER_URL!,
      indexerUrl: `http://127.0.0.1:${indexerPort}`,
      bundlerUrl: env.BUNDLER_URL,
      deployments,
      deploymentsFile,
      secrets,
      env,
      services,
      stop: stopAll,
    };
  } catch (error) {
    await bundler?.catch(() => {});
    await stopAll();
    throw error;
  }
}

// `npm start`: the whole AgentHub stack on this machine. Ctrl-C stops everything.
import { join } from "node:path";
import { loadDotEnv, readSecretFiles, SECRET_FILE_VARIABLES } from "@agenthub/common";
import { ensureBuild } from "./lib/build.ts";
import { repoRoot } from "./lib/chain.ts";
import { busyPorts, describeHolders } from "./lib/ports.ts";
import { embeddedPostgresPid } from "./lib/postgres.ts";
import { beginShutdown } from "./lib/process.ts";
import { loadStackEnv, type StackEnv } from "./lib/stack-env.ts";
import { ensureWebBuild } from "./lib/web-build.ts";

// .env first (real environment variables win): it may point the stack at an external database or chain.
const envFile = loadDotEnv();
if (envFile) console.log(`configuration read from ${envFile}`);

let env: StackEnv;
try {
  // Secrets given as <NAME>_FILE are read here once and handed to the services it starts as <NAME>.
  const resolved = readSecretFiles(process.env);
  for (const name of SECRET_FILE_VARIABLES) {
    if (!process.env[`${name}_FILE`]) continue;
    delete process.env[`${name}_FILE`];
    process.env[name] = resolved[name];
  }
  env = loadStackEnv();
} catch (error) {
  console.error((error as Error).message);
  process.exit(1);
}
if (env.DATABASE_URL && !env.RPC_URL && !env.RESET_DATABASE) {
  console.error(`DATABASE_URL points at a database of your own while the chain is local. A local chain is new on every
start, so npm start must empty the database first: set RESET_DATABASE=true to let it drop and recreate that database
(everything in it is lost), set RPC_URL to a persistent chain too, or unset DATABASE_URL (embedded Postgres).`);
  process.exit(1);
}

const ports = {
  api: env.PORT,
  relayer: env.RELAYER_PORT,
  indexer: env.INDEXER_PORT,
  chain: env.RPC_URL ? undefined : env.CHAIN_PORT,
  bundler: env.RPC_URL ? undefined : env.BUNDLER_PORT,
  postgres: env.DATABASE_URL ? undefined : env.EMBEDDED_PG_PORT,
};

const dataDir = env.DATA_DIR;

// A stack left running by an earlier (crashed or still open) run is reported, never silently reused. The one
// exception is our own embedded Postgres orphaned by a killed run: its start reports and stops it (postgres.ts).
const ownOrphanPid = embeddedPostgresPid(join(dataDir, "pg"));
const busy = (await busyPorts(Object.values(ports).filter((p): p is number => p !== undefined))).filter(
  (holder) => !(holder.port === ports.postgres && holder.pid !== undefined && holder.pid === ownOrphanPid),
);
if (busy.length > 0) {
  console.error(`Cannot start: these ports are in use (another AgentHub stack, or an earlier run left behind?):
${describeHolders(busy)}
Stop them (e.g. \`kill <pid>\`) or choose other ports (PORT, RELAYER_PORT, INDEXER_PORT, CHAIN_PORT, EMBEDDED_PG_PORT, BUNDLER_PORT).`);
  process.exit(1);
}

// Fresh clone: compile the contracts and generate the typed ABIs the deploy step and services import.
ensureBuild();
// The web app the API serves at / (built when missing or stale).
ensureWebBuild();

const starting = new AbortController();
let stopping = false;
let stopStack: (() => Promise<void>) | undefined;
let started: Promise<unknown> = Promise.resolve();
const shutdown = async (code = 0) => {
  if (stopping) return;
  stopping = true;
  beginShutdown();
  console.log("\nstopping…");
  starting.abort(); // a start in progress stops what it already started
  await started.catch(() => {});
  await stopStack?.();
  process.exit(code);
};
// Installed before anything starts, so Ctrl-C during start-up also stops what is already running.
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(signal, () => shutdown());

// Imported only now: the stack's modules import the generated ABIs that ensureBuild may just have written.
const { startStack } = await import("./lib/stack.ts");
const startingStack = startStack({
  dataDir,
  apiPort: ports.api,
  chainPort: ports.chain,
  pgPort: ports.postgres,
  relayerPort: ports.relayer,
  indexerPort: ports.indexer,
  bundlerPort: ports.bundler,
  databaseUrl: env.DATABASE_URL,
  rpcUrl: env.RPC_URL,
  deploymentsFile: join(repoRoot, "deployments", "localhost.json"),
  signal: starting.signal,
  // A live network (docs/deploy.md): its deployments file and relayer key; nothing is deployed.
  existingDeploymentsFile: process.env.RPC_URL ? process.env.DEPLOYMENTS_FILE : undefined,
  relayerKey: process.env.RPC_URL ? (process.env.RELAYER_PRIVATE_KEY as `0x${string}` | undefined) : undefined,
  // A crashed service is restarted with backoff (logged with "!!"); one that keeps crashing stops everything.
  onServiceGivenUp: (name) => {
    console.error(`\n${name} keeps crashing: stopping the whole stack.`);
    void shutdown(1);
  },
});
started = startingStack;
const stack = await startingStack.catch((error: unknown) => {
  if (stopping) return new Promise<never>(() => {}); // shutdown() exits
  console.error(`\nstart failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
stopStack = () => stack.stop();

console.log(`
AgentHub is up.
  API            http://localhost:${new URL(stack.apiUrl).port}   (docs: /docs, OpenAPI: /openapi.json)
  JSON-RPC       ${stack.rpcUrl}   (chain id ${stack.deployments.chainId})
  Bundler        ${stack.bundlerUrl ?? "none (set BUNDLER_URL)"}   (ERC-4337 v0.8; paymaster: /api/paymaster on the API)
  Deployments    ${stack.deploymentsFile}
  Admin token    in ${join(dataDir, "secrets.json")}: adminToken (Authorization: Bearer <adminToken>)
  Metrics        /metrics on the API and the relayer, with metricsToken from the same file (Bearer)
A service that crashes is restarted (lines starting with "!!" say so). Press Ctrl-C to stop.`);

// `npm start`: the whole AgentHub stack on this machine. Ctrl-C stops everything.
import { join } from "node:path";
import { loadDotEnv } from "@agenthub/common";
import { ensureBuild } from "./lib/build.ts";
import { repoRoot } from "./lib/chain.ts";
import { busyPorts, describeHolders } from "./lib/ports.ts";
import { embeddedPostgresPid } from "./lib/postgres.ts";
import { beginShutdown } from "./lib/process.ts";

// .env first (real environment variables win): it may point the stack at an external database or chain.
const envFile = loadDotEnv();
if (envFile) console.log(`configuration read from ${envFile}`);

const ports = {
  api: Number(process.env.PORT ?? 3000),
  relayer: Number(process.env.RELAYER_PORT ?? 3001),
  indexer: Number(process.env.INDEXER_PORT ?? 42069),
  chain: process.env.RPC_URL ? undefined : 8545,
  postgres: process.env.DATABASE_URL ? undefined : Number(process.env.EMBEDDED_PG_PORT ?? 54329),
};

const dataDir = process.env.DATA_DIR ?? join(repoRoot, ".data");

// A stack left running by an earlier (crashed or still open) run is reported, never silently reused. The one
// exception is our own embedded Postgres orphaned by a killed run: its start reports and stops it (postgres.ts).
const ownOrphanPid = embeddedPostgresPid(join(dataDir, "pg"));
const busy = (await busyPorts(Object.values(ports).filter((p): p is number => p !== undefined))).filter(
  (holder) => !(holder.port === ports.postgres && holder.pid !== undefined && holder.pid === ownOrphanPid),
);
if (busy.length > 0) {
  console.error(`Cannot start: these ports are in use (another AgentHub stack, or an earlier run left behind?):
${describeHolders(busy)}
Stop them (e.g. \`kill <pid>\`) or choose other ports (PORT, RELAYER_PORT, INDEXER_PORT, EMBEDDED_PG_PORT).`);
  process.exit(1);
}

// Fresh clone: compile the contracts and generate the typed ABIs the deploy step and services import.
ensureBuild();

const starting = new AbortController();
let stopping = false;
let stopStack: (() => Promise<void>) | undefined;
let started: Promise<unknown> = Promise.resolve();
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  beginShutdown();
  console.log("\nstopping…");
  starting.abort(); // a start in progress stops what it already started
  await started.catch(() => {});
  await stopStack?.();
  process.exit(0);
};
// Installed before anything starts, so Ctrl-C during start-up also stops what is already running.
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);
process.on("SIGHUP", shutdown);

// Imported only now: the stack's modules import the generated ABIs that ensureBuild may just have written.
const { startStack } = await import("./lib/stack.ts");
const startingStack = startStack({
  dataDir,
  apiPort: ports.api,
  chainPort: ports.chain,
  pgPort: ports.postgres,
  relayerPort: ports.relayer,
  indexerPort: ports.indexer,
  databaseUrl: process.env.DATABASE_URL,
  rpcUrl: process.env.RPC_URL,
  deploymentsFile: join(repoRoot, "deployments", "localhost.json"),
  signal: starting.signal,
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
  Deployments    ${stack.deploymentsFile}
  Admin token    stored in .data/secrets.json (Authorization: Bearer <adminToken>)
Press Ctrl-C to stop.`);

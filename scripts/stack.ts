// `npm start`: the whole AgentHub stack on this machine. Ctrl-C stops everything.
import { join } from "node:path";
import { loadDotEnv } from "@agenthub/common";
import { repoRoot } from "./lib/chain.ts";
import { beginShutdown } from "./lib/process.ts";
import { startStack } from "./lib/stack.ts";

// .env first (real environment variables win): it may point the stack at an external database or chain.
const envFile = loadDotEnv();
if (envFile) console.log(`configuration read from ${envFile}`);
const stack = await startStack({
  dataDir: process.env.DATA_DIR ?? join(repoRoot, ".data"),
  apiPort: Number(process.env.PORT ?? 3000),
  chainPort: process.env.RPC_URL ? undefined : 8545,
  pgPort: Number(process.env.EMBEDDED_PG_PORT ?? 54329),
  relayerPort: Number(process.env.RELAYER_PORT ?? 3001),
  indexerPort: Number(process.env.INDEXER_PORT ?? 42069),
  databaseUrl: process.env.DATABASE_URL,
  rpcUrl: process.env.RPC_URL,
  deploymentsFile: join(repoRoot, "deployments", "localhost.json"),
});

console.log(`
AgentHub is up.
  API            http://localhost:${new URL(stack.apiUrl).port}   (docs: /docs, OpenAPI: /openapi.json)
  JSON-RPC       ${stack.rpcUrl}   (chain id ${stack.deployments.chainId})
  Deployments    ${stack.deploymentsFile}
  Admin token    stored in .data/secrets.json (Authorization: Bearer <adminToken>)
Press Ctrl-C to stop.`);

let stopping = false;
const shutdown = async () => {
  if (stopping) return;
  stopping = true;
  beginShutdown();
  console.log("\nstopping…");
  await stack.stop();
  process.exit(0);
};
process.on("SIGINT", shutdown);
process.on("SIGTERM", shutdown);

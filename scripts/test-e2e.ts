// Starts one local stack, runs every end-to-end test file against it over real HTTP, then stops it.
import { spawnSync } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { repoRoot } from "./lib/chain.ts";
import { startStack } from "./lib/stack.ts";

const dataDir = mkdtempSync(join(tmpdir(), "agenthub-e2e-"));
const files = process.argv.slice(2).length
  ? process.argv.slice(2)
  : readdirSync(join(repoRoot, "test", "e2e"))
      .filter((f) => f.endsWith(".test.ts"))
      .map((f) => join("test", "e2e", f));

const started = Date.now();
const stack = await startStack({
  dataDir,
  quiet: process.env.E2E_VERBOSE !== "true",
  log: (msg) => console.log(`[stack] ${msg}`),
  // Tests speak for many clients: each sets X-Forwarded-For, as a load balancer would.
  apiEnv: { TRUST_PROXY: "true", LOG_LEVEL: "warn", ...JSON.parse(process.env.E2E_API_ENV ?? "{}") },
});
console.log(`[stack] up in ${((Date.now() - started) / 1000).toFixed(1)} s`);
const stackFile = join(dataDir, "stack.json");
writeFileSync(
  stackFile,
  JSON.stringify({
    apiUrl: stack.apiUrl,
    rpcUrl: stack.rpcUrl,
    databaseUrl: stack.databaseUrl,
    relayerUrl: stack.relayerUrl,
    deploymentsFile: stack.deploymentsFile,
    secrets: stack.secrets,
    env: stack.env,
  }),
);

let status = 1;
try {
  const result = spawnSync(
    process.execPath,
    ["--import", "tsx", "--test", "--test-concurrency=1", "--test-timeout=300000", ...files],
    { cwd: repoRoot, stdio: "inherit", env: { ...process.env, AGENTHUB_STACK: stackFile } },
  );
  status = result.status ?? 1;
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(status);

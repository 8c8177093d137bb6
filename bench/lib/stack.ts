// A fresh local stack for a benchmark, described in stack.json so the end-to-end helpers (test/support/*), which
// read AGENTHUB_STACK at import time, drive it. Import those helpers dynamically after this resolves.
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStack } from "../../scripts/lib/stack.ts";

export async function startBenchStack(name: string, apiEnv: Record<string, string>) {
  const dataDir = mkdtempSync(join(tmpdir(), `agenthub-bench-${name}-`));
  const booted = Date.now();
  const stack = await startStack({
    dataDir,
    quiet: process.env.BENCH_VERBOSE !== "true",
    log: (msg) => console.log(`[stack] ${msg}`),
    apiEnv,
  });
  console.log(`[stack] up in ${((Date.now() - booted) / 1000).toFixed(1)} s`);
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
  process.env.AGENTHUB_STACK = stackFile;
  return {
    stack,
    async stop() {
      await stack.stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

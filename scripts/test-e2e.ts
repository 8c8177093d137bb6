// Starts one local stack, runs every end-to-end test file against it over real HTTP, then stops it.
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestDns } from "../test/support/dns.ts";
import { repoRoot } from "./lib/chain.ts";
import { startStack } from "./lib/stack.ts";
import { ensureWebBuild } from "./lib/web-build.ts";

// Hermetic: a developer's .env (say, a live RPC_URL) must not leak into the test stack's services.
process.env.ENV_FILE = "";
const dataDir = mkdtempSync(join(tmpdir(), "agenthub-e2e-"));
const files = process.argv.slice(2).length ? process.argv.slice(2) : suiteOrder();

/**
 * The whole suite, one file at a time on one stack: first the files that leave chain time alone, then those that
 * move it forward (evm_increaseTime), each alphabetically. Chain time never goes back, so a file that jumps days
 * ahead runs after every file that reads the clock as it is, and the catch-up work a jump causes (expiry, daily
 * recomputes) falls on time-travelling files only. test/README.md has the rules a file follows.
 */
function suiteOrder(): string[] {
  const dir = join(repoRoot, "test", "e2e");
  const all = readdirSync(dir)
    .filter((f) => f.endsWith(".test.ts"))
    .sort();
  const movesTime = (f: string) =>
    /increaseTime\(|evm_increaseTime|evm_setNextBlockTimestamp/.test(readFileSync(join(dir, f), "utf8"));
  const travelling = all.filter(movesTime);
  return [...all.filter((f) => !movesTime(f)), ...travelling].map((f) => join("test", "e2e", f));
}

const started = Date.now();
// The API serves the web app from web/dist; the browser tests drive it (built when missing or stale).
ensureWebBuild();
// A real DNS server on loopback answers the domain-verification TXT lookups (tests write its records file).
const dns = await startTestDns(join(dataDir, "dns-records.json"));
// Background jobs run on short intervals so tests see uptime checks, expiry and recomputes within seconds.
const jobEnv = {
  UPTIME_INTERVAL_SECONDS: "2",
  UPTIME_TIMEOUT_MS: "1500",
  REPUTATION_INTERVAL_SECONDS: "5",
  EXPIRY_INTERVAL_SECONDS: "2",
  RECOMPUTE_POLL_SECONDS: "1",
  WEBHOOK_DISPATCH_INTERVAL_SECONDS: "1",
  SUBSCRIPTION_INTERVAL_SECONDS: "1",
  PROFILE_COALESCE_SECONDS: "3",
  PROFILE_PUBLISH_INTERVAL_SECONDS: "2",
  PRUNE_INTERVAL_SECONDS: "5",
  WEBHOOK_RETRY_BASE_SECONDS: "1",
  KEY_CUSTODY_INTERVAL_SECONDS: "1",
  // Checked every second; the threshold (1,000 USDC of fees) is far above what other tests accrue, so only the
  // fee-sweep test (money-safety) crosses it.
  FEE_SWEEP_INTERVAL_SECONDS: "1",
  // Rewards reach the owners within about a second of an approval (tests wait for the payout).
  REWARD_PAYOUT_INTERVAL_SECONDS: "1",
  // Runs past the review or dispute window are ended within about a second of the time jump that passes it.
  RUN_EXIT_INTERVAL_SECONDS: "1",
  FEE_SWEEP_THRESHOLD: "1000000000",
  ALLOW_PRIVATE_UPTIME_TARGETS: "true",
  DNS_SERVER: dns.server,
};
const stack = await startStack({
  dataDir,
  quiet: process.env.E2E_VERBOSE !== "true",
  log: (msg) => console.log(`[stack] ${msg}`),
  // Tests speak for many clients: each sets X-Forwarded-For, as a load balancer would.
  apiEnv: { TRUST_PROXY: "1", LOG_LEVEL: "warn", ...jobEnv, ...JSON.parse(process.env.E2E_API_ENV ?? "{}") },
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
    indexerUrl: stack.indexerUrl,
    deploymentsFile: stack.deploymentsFile,
    secrets: stack.secrets,
    env: stack.env,
  }),
);

let status = 1;
try {
  // Asynchronous, so this process keeps serving the test DNS server while the tests run.
  const child = spawn(process.execPath, ["--import", "tsx", join("scripts", "lib", "run-test-files.ts"), ...files], {
    cwd: repoRoot,
    stdio: "inherit",
    env: { ...process.env, AGENTHUB_STACK: stackFile },
  });
  status = await new Promise<number>((resolve) => child.on("exit", (code) => resolve(code ?? 1)));
} finally {
  await stack.stop();
  await dns.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.exit(status);

// Benchmark: the API's public reads against a minimal Hono + one-pg-read server on the same Postgres, same run
// (issue 15 goal 1). A fresh local stack; a few agents, runs and reputation rows created over HTTP; then for each
// endpoint autocannon with C connections for S seconds (after a warm-up), the baseline measured right before it, so
// each ratio compares two measurements seconds apart on this shared machine; BENCH_ROUNDS such pairs per endpoint
// (default 3), the median pair reported. Prints and writes the generated section
// of bench/results/reads.md: requests/s, p50/p99 latency and the ratio to the baseline next to it.
//
//   pnpm exec tsx bench/reads.ts [S=10] [C=50]
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import autocannon from "autocannon";
import { repoRoot } from "../scripts/lib/chain.ts";
import { machineLine, writeResults } from "./lib/results.ts";
import { startBenchStack } from "./lib/stack.ts";

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 50);
/** Baseline-then-endpoint pairs per endpoint; the table shows each endpoint's median pair (by ratio). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
// Rate limits scaled so they never trip: every request is still counted, as in production.
const bench = await startBenchStack("reads", {
  LOG_LEVEL: "warn",
  RATE_LIMIT_MULTIPLIER: "1000000",
  ...JSON.parse(process.env.BENCH_API_ENV ?? "{}"),
});
const { stack } = bench;
const { api } = await import("../test/support/stack.ts");
const { stakedAgent } = await import("../test/support/agents.ts");
const { newPoster, openRun } = await import("../test/support/runs.ts");

let baseline: ChildProcess | undefined;
try {
  // Data: 20 staked agents, 10 open runs, reputation rows.
  const agents = [];
  for (let i = 0; i < 20; i++) agents.push(await stakedAgent());
  const poster = await newPoster();
  const runs = [];
  for (let i = 0; i < 10; i++) runs.push(await openRun(poster));
  const agentId = agents[0]!.agentId;
  const runId = runs[0]!.bountyId;
  for (const path of [`/api/agents/${agentId}`, `/api/reputation/${agentId}`, `/api/runs/${runId}`]) {
    const res = await api("GET", path);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }

  baseline = spawn(process.execPath, ["--import", "tsx", join(repoRoot, "bench", "read-baseline-server.ts")], {
    env: { ...process.env, DATABASE_URL: stack.databaseUrl, PORT: "0" },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const baselinePort = await new Promise<number>((resolve, reject) => {
    baseline!.stdout!.on("data", (chunk: Buffer) => {
      const m = /listening (\d+)/.exec(chunk.toString());
      if (m) resolve(Number(m[1]));
    });
    baseline!.once("exit", (code) => reject(new Error(`baseline server exited with ${code}`)));
  });
  const baselineUrl = `http://127.0.0.1:${baselinePort}/agents/${agentId}`;

  const measure = async (url: string) => {
    await autocannon({ url, connections: CONNECTIONS, duration: 2 }); // warm-up
    const r = await autocannon({ url, connections: CONNECTIONS, duration: SECONDS });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99 };
  };

  const targets: [string, string][] = [
    ["GET /api/agents/:id", `/api/agents/${agentId}`],
    ["GET /api/reputation/:id", `/api/reputation/${agentId}`],
    ["GET /api/runs/:id", `/api/runs/${runId}`],
    ["GET /api/agents (20)", "/api/agents?limit=20"],
    ["GET /api/runs (10)", "/api/runs?limit=20"],
    ["GET /api/reputation (leaderboard, 20)", "/api/reputation?limit=20"],
  ];
  const machineAtStart = machineLine();
  type Measured = Awaited<ReturnType<typeof measure>>;
  const measured: { name: string; base: Measured; api: Measured }[] = [];
  for (const [name, path] of targets) {
    const pairs: { base: Measured; api: Measured }[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const base = await measure(baselineUrl);
      const api = await measure(`${stack.apiUrl}${path}`);
      pairs.push({ base, api });
      console.log(name, round, { api, base, ratio: (api.rps / base.rps).toFixed(2) });
    }
    pairs.sort((a, b) => a.api.rps / a.base.rps - b.api.rps / b.base.rps);
    measured.push({ name, ...pairs[Math.floor(pairs.length / 2)]! });
  }
  const rows = measured.map(
    ({ name, base, api }) =>
      `| ${name} | ${api.rps.toFixed(0)} | ${api.p50} | ${api.p99} | ${base.rps.toFixed(0)} | ${base.p99} | ${(api.rps / base.rps).toFixed(2)} | ${api.p99 < 25 && api.rps / base.rps >= 0.5 ? "yes" : "no"} |`,
  );
  const table = [
    "| endpoint | requests/s | p50 ms | p99 ms | baseline requests/s (just before) | baseline p99 ms | ratio | target met |",
    "|---|---:|---:|---:|---:|---:|---:|---|",
    ...rows,
  ].join("\n");
  console.log(table);
  const lowest = Math.min(...measured.map((m) => m.api.rps / m.base.rps));
  const file = writeResults(
    "reads",
    "Reads",
    `\`pnpm exec tsx bench/reads.ts ${SECONDS} ${CONNECTIONS}\`, ${new Date().toISOString().slice(0, 16)}Z, ${machineAtStart} at the start, ${machineLine()} at the end (other work shares the machine; the load generator runs on it too).
One local stack (one API process, its default pool of 20), ${CONNECTIONS} autocannon connections, ${SECONDS} s per measurement after a 2 s warm-up; rate limits counted on every request (scaled so they never trip). Baseline: \`bench/read-baseline-server.ts\` (Hono, @hono/node-server, pg pool of 20, one primary-key read of \`api.agent_profile\`), same Postgres, measured right before each endpoint; ${ROUNDS} baseline-then-endpoint pairs per endpoint, the pair with the median ratio shown.

${table}

Lowest ratio: ${lowest.toFixed(2)} (target ≥ 0.5 and p99 < 25 ms).`,
  );
  console.log(`wrote ${file}`);
} finally {
  baseline?.kill("SIGTERM");
  await bench.stop();
}

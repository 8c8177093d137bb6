// Benchmark: the API's public reads against a minimal Hono + one-pg-read server on the same Postgres, same run
// (issue 15 goal 1). A fresh local stack; a few agents, runs and reputation rows created over HTTP; then for each
// endpoint autocannon with C connections for S seconds (after a warm-up). Prints and writes bench/results/reads.md:
// requests/s, p50/p99 latency and the ratio to the baseline server.
//
//   pnpm exec tsx bench/reads.ts [S=10] [C=50]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { repoRoot } from "../scripts/lib/chain.ts";
import { startBenchStack } from "./lib/stack.ts";

const SECONDS = Number(process.argv[2] ?? 10);
const CONNECTIONS = Number(process.argv[3] ?? 50);
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
  const load = loadavg()[0]!.toFixed(2);
  // The baseline is measured before and after the API's endpoints; ratios are to the mean of both (the machine is
  // shared, so its speed drifts during the run).
  const first = await measure(baselineUrl);
  const measured: [string, Awaited<ReturnType<typeof measure>>][] = [];
  for (const [name, path] of targets) {
    measured.push([name, await measure(`${stack.apiUrl}${path}`)]);
    console.log(name, measured.at(-1)![1]);
  }
  const last = await measure(baselineUrl);
  const baseRps = (first.rps + last.rps) / 2;
  const row = (name: string, m: { rps: number; p50: number; p99: number }) =>
    `| ${name} | ${m.rps.toFixed(0)} | ${m.p50} | ${m.p99} | ${(m.rps / baseRps).toFixed(2)} |`;
  const rows = [row("baseline: Hono + one pg primary-key read (first)", first), row("baseline (last)", last)];
  const ratios = measured.map(([, m]) => m.rps / baseRps);
  for (const [name, m] of measured) rows.push(row(name, m));
  const table = [
    "| endpoint | requests/s | p50 ms | p99 ms | ratio to baseline |",
    "|---|---:|---:|---:|---:|",
    ...rows,
  ].join("\n");
  console.log(table);
  mkdirSync(join(repoRoot, "bench", "results"), { recursive: true });
  writeFileSync(
    join(repoRoot, "bench", "results", "reads.md"),
    `# Reads

\`pnpm exec tsx bench/reads.ts ${SECONDS} ${CONNECTIONS}\` on ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${new Date().toISOString().slice(0, 10)}, 1-minute load average ${load} at the start (other work shares the machine; the load generator runs on it too).
One local stack (one API process, its default pool of 20), ${CONNECTIONS} autocannon connections, ${SECONDS} s per endpoint after a 2 s warm-up; rate limits counted on every request (scaled so they never trip). Baseline: \`bench/read-baseline-server.ts\` (Hono, @hono/node-server, pg pool of 20, one primary-key read of \`api.agent_profile\`), same Postgres, same run.

${table}

Lowest ratio: ${Math.min(...ratios).toFixed(2)} (target ≥ 0.5, p99 < 25 ms).
`,
  );
} finally {
  baseline?.kill("SIGTERM");
  await bench.stop();
}

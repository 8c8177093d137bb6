// Benchmark: gasless registrations over HTTP on a fresh local stack (chain, Postgres, indexer, relayer, API).
//   1. sustained: N registrations kept C in flight (rate limits do not bind: each request has its own client IP)
//   2. burst: B registrations sent at once (more than the API's 20 pooled connections)
// Reports throughput, latency percentiles and the indexer lag behind the answers; writes bench/results/registrations.md.
//
//   pnpm exec tsx bench/registrations.ts [N=300] [C=32] [B=200]
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { startStack } from "../scripts/lib/stack.ts";
import { machineLine, writeResults } from "./lib/results.ts";

const N = Number(process.argv[2] ?? 300);
const C = Number(process.argv[3] ?? 32);
const B = Number(process.argv[4] ?? 200);

const dataDir = mkdtempSync(join(tmpdir(), "agenthub-bench-"));
const stack = await startStack({
  dataDir,
  quiet: true,
  log: (msg) => console.log(`[stack] ${msg}`),
  apiEnv: {
    TRUST_PROXY: "1",
    LOG_LEVEL: "warn",
    JOBS_ENABLED: "false",
    ...JSON.parse(process.env.BENCH_API_ENV ?? "{}"),
  },
});
const db = new pg.Pool({ connectionString: stack.databaseUrl, max: 2 });

let ip = 0;
const nextIp = () => {
  ip++;
  return `10.${(ip >> 16) & 255}.${(ip >> 8) & 255}.${ip & 255}`;
};

async function registerOnce(i: number): Promise<{ ms: number; agentId: number }> {
  const started = performance.now();
  const res = await fetch(`${stack.apiUrl}/api/agents/register`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": nextIp() },
    body: JSON.stringify({ name: `bench-${i}`, capabilities: ["coding"] }),
    signal: AbortSignal.timeout(180_000),
  });
  const body = (await res.json()) as { agentId: number };
  if (res.status !== 201) throw new Error(`registration ${i}: ${res.status} ${JSON.stringify(body)}`);
  return { ms: performance.now() - started, agentId: body.agentId };
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

async function indexedAfter(ids: number[]): Promise<number> {
  const started = performance.now();
  while (true) {
    const r = await db.query("select count(*)::int n from chain.agent where id = any($1)", [ids]);
    if (r.rows[0].n === ids.length) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 20));
  }
}

// Warm-up (JIT, connections, first blocks).
await Promise.all(Array.from({ length: 8 }, (_, i) => registerOnce(-i - 1)));

// 1. Sustained.
const sustained: number[] = [];
const sustainedIds: number[] = [];
let next = 0;
const t1 = performance.now();
await Promise.all(
  Array.from({ length: C }, async () => {
    while (next < N) {
      const i = next++;
      const r = await registerOnce(i);
      sustained.push(r.ms);
      sustainedIds.push(r.agentId);
    }
  }),
);
const sustainedSeconds = (performance.now() - t1) / 1000;
const sustainedLag = await indexedAfter(sustainedIds);

// 2. Burst.
const t2 = performance.now();
const burst = await Promise.all(Array.from({ length: B }, (_, i) => registerOnce(N + i)));
const burstSeconds = (performance.now() - t2) / 1000;
const burstLag = await indexedAfter(burst.map((b) => b.agentId));

const row = (name: string, n: number, seconds: number, ms: number[], lag: number) =>
  `| ${name} | ${n} | ${seconds.toFixed(1)} | ${(n / seconds).toFixed(1)} | ${pct(ms, 50).toFixed(0)} | ${pct(ms, 95).toFixed(0)} | ${pct(ms, 99).toFixed(0)} | ${lag.toFixed(0)} |`;
const table = [
  "| phase | registrations | seconds | per second | p50 ms | p95 ms | p99 ms | indexed after last answer (ms) |",
  "|---|---|---|---|---|---|---|---|",
  row(`sustained, ${C} in flight`, N, sustainedSeconds, sustained, sustainedLag),
  row(
    `burst, ${B} at once`,
    B,
    burstSeconds,
    burst.map((b) => b.ms),
    burstLag,
  ),
].join("\n");
console.log(table);

writeResults(
  "registrations",
  "Registrations",
  `\`pnpm exec tsx bench/registrations.ts ${N} ${C} ${B}\`, ${new Date().toISOString().slice(0, 16)}Z, ${machineLine()} at the end (other work shares the machine; the load generator runs on it too).
One local stack (Hardhat automine: one block per transaction), one API process, one relayer; every request a distinct client IP.
Each answer is sent once the mint is mined and the indexer holds its block (read-your-writes; the wait is bounded by
INDEXER_WAIT_MS, after which the answer goes out anyway); the last column is how long after the last answer the
indexer held every agent.

${table}`,
);
await db.end();
await stack.stop();
rmSync(dataDir, { recursive: true, force: true });

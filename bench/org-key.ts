// Benchmark: what a request made with an organization key costs in the database (issue 14: auth lookup, rate
// limit, quota, usage and the organization scope were separate round trips). A fresh local stack; one organization
// (its own monthly quota, so every limit and quota path runs); then, for the same route,
//   1. statements per request: N sequential requests, counted as committed transactions of the database
//      (pg_stat_database; every round trip outside a transaction is one), minus the background jobs' rate measured
//      idle just before (the stack's scheduler and pollers share the database);
//   2. throughput and latency: autocannon with C connections for S seconds.
// Compared with the same route called with the platform admin token (no organization key) in the same run.
// Prints and writes bench/results/org-key.md.
//
//   pnpm exec tsx bench/org-key.ts [N=2000] [S=10] [C=20]
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import pg from "pg";
import { repoRoot } from "../scripts/lib/chain.ts";
import { startBenchStack } from "./lib/stack.ts";

const N = Number(process.argv[2] ?? 2000);
const SECONDS = Number(process.argv[3] ?? 10);
const CONNECTIONS = Number(process.argv[4] ?? 20);
const LABEL = process.env.BENCH_LABEL ?? "this tree";
const bench = await startBenchStack("org-key", { LOG_LEVEL: "warn", RATE_LIMIT_MULTIPLIER: "1000000" });
const { stack } = bench;
const { api } = await import("../test/support/stack.ts");
const db = new pg.Pool({ connectionString: stack.databaseUrl, max: 1 });

try {
  const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
  const created = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name: "Bench org", subdomain: `bench-${Date.now().toString(36)}`, plan: "growth" },
  });
  if (created.status !== 201) throw new Error(`create: ${created.status} ${JSON.stringify(created.body)}`);
  const org = created.body as { id: string; apiKey: string };
  const quotas = await api("PATCH", `/api/organizations/${org.id}`, {
    headers: admin,
    body: { quotas: { apiCallsPerMonth: 1_000_000_000 } },
  });
  if (quotas.status !== 200) throw new Error(`quotas: ${quotas.status} ${JSON.stringify(quotas.body)}`);
  const path = `/api/organizations/${org.id}`;
  const callers: [string, Record<string, string>][] = [
    ["organization key", { "x-api-key": org.apiKey }],
    ["platform admin token", admin],
  ];

  const commits = async () => {
    const { rows } = await db.query<{ n: string }>(
      "select (xact_commit + xact_rollback)::text n from pg_stat_database where datname = current_database()",
    );
    return Number(rows[0]!.n);
  };
  // Statistics are flushed by each backend at most once a second (and at idle): wait them out around a window.
  const settle = () => new Promise((r) => setTimeout(r, 1500));
  const counted = async (fn: () => Promise<void>) => {
    await settle();
    const before = await commits();
    const started = Date.now();
    await fn();
    await settle();
    return { transactions: (await commits()) - before - 1, ms: Date.now() - started + 1500 };
  };
  const idle = await counted(() => new Promise((r) => setTimeout(r, 5000)));
  const noisePerMs = idle.transactions / idle.ms;

  const results: { caller: string; perRequest: number; raw: number; rps: number; p50: number; p99: number }[] = [];
  for (const [caller, headers] of callers) {
    for (let i = 0; i < 50; i++) await api("GET", path, { headers }); // warm the pool and the caches
    const c = await counted(async () => {
      for (let i = 0; i < N; i++) {
        const res = await api("GET", path, { headers });
        if (res.status !== 200) throw new Error(`${caller}: ${res.status} ${JSON.stringify(res.body)}`);
      }
    });
    const load = await autocannon({
      url: `${stack.apiUrl}${path}`,
      headers,
      connections: CONNECTIONS,
      duration: SECONDS,
    });
    if (load.non2xx > 0 || load.errors > 0) throw new Error(`${caller}: ${load.non2xx} non-2xx, ${load.errors} errors`);
    results.push({
      caller,
      raw: c.transactions / N,
      perRequest: (c.transactions - noisePerMs * c.ms) / N,
      rps: load.requests.average,
      p50: load.latency.p50,
      p99: load.latency.p99,
    });
    console.log(results.at(-1));
  }
  const table = [
    "| caller | statements per request | raw (with background jobs) | requests/s | p50 ms | p99 ms |",
    "|---|---:|---:|---:|---:|---:|",
    ...results.map(
      (r) =>
        `| ${r.caller} | ${r.perRequest.toFixed(2)} | ${r.raw.toFixed(2)} | ${r.rps.toFixed(0)} | ${r.p50} | ${r.p99} |`,
    ),
  ].join("\n");
  console.log(table);
  mkdirSync(join(repoRoot, "bench", "results"), { recursive: true });
  writeFileSync(
    join(repoRoot, "bench", "results", `org-key${process.env.BENCH_SUFFIX ?? ""}.md`),
    `# Organization key: database round trips per request (${LABEL})

\`pnpm exec tsx bench/org-key.ts ${N} ${SECONDS} ${CONNECTIONS}\` on ${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, ${new Date().toISOString().slice(0, 16)} UTC, 1-minute load average ${loadavg()[0]!.toFixed(2)} at the end (the machine is shared).
Route: \`GET /api/organizations/:id\` (its handler reads the organization row once). Statements: committed transactions of the stack's database over ${N} sequential requests, minus the background jobs' rate measured idle in the same run (${(noisePerMs * 1000).toFixed(1)} per second); each autocommit round trip is one. Throughput: autocannon, ${CONNECTIONS} connections, ${SECONDS} s.

${table}
`,
  );
} finally {
  await db.end();
  await bench.stop();
}

// Where the time of one uncached search goes, request by request: for BENCH_SAMPLES random bodies of one benchmark
// scenario it runs the passes exactly as the API does (runSearchPasses, the API's own choice: the walk, then the GIN
// "match" pass when the walk falls short; the search pool's force_generic_plan) and, for each pass, EXPLAIN
// (ANALYZE, BUFFERS) of the same prepared statement: the pass taken, its time, the walk's rows read and the buffers. Needs a seeded cluster:
//   BENCH_DATA_DIR=/path pnpm exec tsx bench/search-profile.ts [scenario=combined] [agents=1000000]
// (bench/search.ts with the same BENCH_DATA_DIR seeds it). Prints a summary; writes nothing.
import type pg from "pg";
import type { SearchFilters, SearchPass } from "../api/src/stores/search/query.ts";
import { openSearchCluster } from "./lib/search-cluster.ts";

const N = Number(process.argv[3] ?? 1_000_000);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const { client, scenario, body, searchAsTheApi, close } = await openSearchCluster(process.argv[2] ?? "combined");

interface PassRun {
  pass: SearchPass;
  /** Wall time of the plain execution as the API runs it (ms). */
  ms: number;
  /** EXPLAIN ANALYZE execution time (ms; instrumented, so somewhat above `ms`). */
  explainedMs: number;
  /** Rows the walk read from agent_search_walk_idx (0 when the gate skipped it), or the GIN pass's matches. */
  rows: number;
  buffers: number;
  found: number;
}

const literal = (v: unknown): string =>
  v === null || v === undefined
    ? "null"
    : Array.isArray(v)
      ? client.escapeLiteral(`{${v.map((x) => `"${String(x).replace(/(["\\])/g, "\\$1")}"`).join(",")}}`)
      : typeof v === "string"
        ? client.escapeLiteral(v)
        : String(v);

interface PlanNode {
  "Node Type": string;
  "Index Name"?: string;
  "Actual Rows": number;
  "Actual Loops": number;
  "Shared Hit Blocks"?: number;
  "Shared Read Blocks"?: number;
  Plans?: PlanNode[];
}
const walkNodes = (n: PlanNode, out: PlanNode[] = []): PlanNode[] => {
  out.push(n);
  for (const c of n.Plans ?? []) walkNodes(c, out);
  return out;
};

let prepared = 0;
/** Runs one pass's statement as the API does, then EXPLAINs it: its row, and what it cost. */
async function runPass(q: pg.QueryConfig, pass: SearchPass): Promise<{ run: PassRun; row: { found?: number } }> {
  const values = q.values as unknown[];
  const t = performance.now();
  const { rows } = await client.query(q);
  const ms = performance.now() - t;
  const name = `p${prepared++}`;
  await client.query(`prepare ${name} as ${q.text}`);
  const { rows: plan } = await client.query<{ "QUERY PLAN": [{ Plan: PlanNode; "Execution Time": number }] }>(
    `explain (analyze, buffers, format json) execute ${name}(${values.map(literal).join(", ")})`,
  );
  await client.query(`deallocate ${name}`);
  const root = plan[0]!["QUERY PLAN"][0];
  const nodes = walkNodes(root.Plan);
  const scan =
    pass === "walk"
      ? nodes.find((n) => n["Index Name"] === "agent_search_walk_idx")
      : nodes.find((n) => n["Node Type"] === "Bitmap Heap Scan" || n["Node Type"].includes("Index"));
  const row = rows[0] ?? {};
  const run = {
    pass,
    ms,
    explainedMs: root["Execution Time"],
    rows: scan ? scan["Actual Rows"] * scan["Actual Loops"] : 0,
    buffers: (root.Plan["Shared Hit Blocks"] ?? 0) + (root.Plan["Shared Read Blocks"] ?? 0),
    found: row.found ?? 0,
  };
  return { run, row };
}

const q = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mean = xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  return `n ${xs.length}, mean ${mean.toFixed(1)}, p50 ${q(s, 50)?.toFixed(1)}, p95 ${q(s, 95)?.toFixed(1)}, max ${s.at(-1)?.toFixed(1)}`;
};

try {
  // Warm the session (catalog caches, the generic plans) before measuring.
  for (let i = 0; i < 20; i++) await searchAsTheApi(body(), async (q) => (await client.query(q)).rows[0]);
  const kinds = new Map<string, { total: number[]; passes: PassRun[][]; bodies: SearchFilters[] }>();
  for (let i = 0; i < SAMPLES; i++) {
    const f = body();
    const passes: PassRun[] = [];
    await searchAsTheApi(f, async (q, pass) => {
      const { run, row } = await runPass(q, pass);
      passes.push(run);
      return row;
    });
    // The request's path: which passes ran and whether the walk read rows or the gate skipped it.
    const kind = passes
      .map((p) =>
        p.pass !== "walk"
          ? `${p.pass === "match" ? "GIN match" : "score-order rest"} pass`
          : p.rows === 0
            ? "walk gated off"
            : passes.length === 1
              ? "walk answered"
              : "walk fell short",
      )
      .join(", then ");
    const k = kinds.get(kind) ?? { total: [], passes: [], bodies: [] };
    k.bodies.push(f);
    k.total.push(passes.reduce((n, p) => n + p.ms, 0));
    k.passes.push(passes);
    kinds.set(kind, k);
  }
  console.log(`${N.toLocaleString("en-US")} agents, scenario "${scenario.name}", ${SAMPLES} random bodies`);
  const all = [...kinds.values()].flatMap((k) => k.total);
  console.log(`all requests, database ms: ${stats(all)}`);
  for (const [kind, k] of kinds) {
    console.log(`\n${kind}: ${((100 * k.total.length) / SAMPLES).toFixed(0)}% of requests, ${stats(k.total)} ms`);
    for (const pass of ["walk", "match", "rest"] as const) {
      const runs = k.passes.flatMap((ps) => ps.filter((p) => p.pass === pass));
      if (!runs.length) continue;
      console.log(`  ${pass}: ms ${stats(runs.map((r) => r.ms))}`);
      console.log(`  ${pass}: EXPLAIN ms ${stats(runs.map((r) => r.explainedMs))}`);
      console.log(`  ${pass}: rows ${stats(runs.map((r) => r.rows))}`);
      console.log(`  ${pass}: buffers ${stats(runs.map((r) => r.buffers))}`);
    }
    const slowest = k.total.map((ms, i) => ({ ms, f: k.bodies[i] })).sort((a, b) => b.ms - a.ms);
    for (const { ms, f } of slowest.slice(0, 3)) console.log(`  slow: ${ms.toFixed(1)} ms ${JSON.stringify(f)}`);
  }
} finally {
  await close();
}

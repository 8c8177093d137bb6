// Benchmark: paid agent search end to end at 1,000,000 agents.
//   pnpm exec tsx bench/search.ts [agents=1000000]     env: BENCH_DURATION (s, 10), BENCH_CONNECTIONS (16)
// Embedded PostgreSQL 18 with the API's migrations, seeded by bench/seed-agents.sql (set-based SQL, not the API);
// the API (bench/search-server.ts: createApp + two bench routes) runs in its own process; autocannon drives it with
// a fresh signed x-payment (spec EIP-712 Payment) per request. Writes bench/results/search.md.
import { type ChildProcess, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { contractNames } from "@agenthub/common";
import autocannon from "autocannon";
import pg from "pg";
import { toHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { migrate } from "../api/src/db/migrate.ts";
import { specPaymentStruct } from "../api/src/payments/spec-scheme.ts";
import { refreshSearchShares } from "../api/src/stores/search/shares.ts";
import { repoRoot } from "../scripts/lib/chain.ts";
import { embeddedPostgresPid, startEmbeddedPostgres } from "../scripts/lib/postgres.ts";
import { freePort } from "../scripts/lib/stack.ts";
import { writeResults } from "./lib/results.ts";
import { type Scenario, SEARCH, scenarios } from "./lib/search-scenarios.ts";

const N = Number(process.argv[2] ?? process.env.BENCH_AGENTS ?? 1_000_000);
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
/** API process counts to measure (comma list): each added process is one more stateless API on the same database. */
/**
 * API configurations to measure (comma list of <processes>:<cache|nocache>): each added process is one more
 * stateless API on the same database; "nocache" turns the per-process search cache off (SEARCH_CACHE_TTL_MS=0) to
 * show the database path alone (search scenarios only).
 */
const CONFIGS = (process.env.BENCH_CONFIGS ?? "1:cache,2:cache,2:nocache").split(",").map((c) => {
  const [processes, cache] = c.split(":");
  return { processes: Number(processes), cache: cache !== "nocache" };
});
type Config = (typeof CONFIGS)[number];
const configName = (c: Config) =>
  `${c.processes} API process${c.processes > 1 ? "es" : ""}, search cache ${c.cache ? "on" : "off"}`;
/** Only scenarios whose name contains one of these (comma list), e.g. BENCH_ONLY=static,common. */
const ONLY = process.env.BENCH_ONLY?.split(",");
const WARMUP = 3;
/** BENCH_DATA_DIR keeps the seeded cluster between runs (seeding 1M agents takes minutes); new migrations still apply. */
const KEEP_DIR = process.env.BENCH_DATA_DIR;
const dir = KEEP_DIR ?? mkdtempSync(join(tmpdir(), "agenthub-bench-search-"));
const seededMarker = join(dir, `seeded-${N}`);
const log = (msg: string) => console.log(`[bench] ${msg}`);
const started = new Date();

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const t = performance.now();
  const v = await fn();
  log(`${what}: ${((performance.now() - t) / 1000).toFixed(1)} s`);
  return v;
}

// ---------- database ----------
/** Postgres sized for the data set (the 1M-agent search table and its indexes are ~2 GB), like a production server. */
const SHARED_BUFFERS = process.env.BENCH_SHARED_BUFFERS ?? "3GB";
const dbPort = await freePort();
let db = await startEmbeddedPostgres({ dir: join(dir, "pg"), port: dbPort, log });
let pool = new pg.Pool({ connectionString: db.url, max: 4 });

/** Applies shared_buffers (needs a restart) and loads the search table and its indexes into it. */
async function sizeAndWarm(): Promise<void> {
  await pool.query(`alter system set shared_buffers = '${SHARED_BUFFERS}'`);
  await pool.end();
  await db.stop();
  db = await startEmbeddedPostgres({ dir: join(dir, "pg"), port: dbPort, log });
  pool = new pg.Pool({ connectionString: db.url, max: 4 });
  const shown = (await pool.query<{ shared_buffers: string }>("show shared_buffers")).rows[0]!.shared_buffers;
  if (shown !== SHARED_BUFFERS) throw new Error(`shared_buffers is ${shown}, not ${SHARED_BUFFERS}`);
  await pool.query("create extension if not exists pg_prewarm");
  const { rows } = await pool.query<{ rel: string; size: string }>(
    `select c.oid::regclass::text rel, pg_size_pretty(pg_relation_size(c.oid)) size
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'api' and c.relkind in ('r', 'i')
        and (c.relname like 'agent_search%' or c.relname in ('payment', 'payment_pkey'))`,
  );
  for (const r of rows) await pool.query("select pg_prewarm($1)", [r.rel]);
  sizes.push(...rows.map((r) => `${r.rel} ${r.size}`));
  log(`shared_buffers ${SHARED_BUFFERS}; prewarmed ${sizes.join(", ")}`);
}
const sizes: string[] = [];
const apis: ChildProcess[] = [];

const seedTimes: Record<string, number> = {};
async function seed(): Promise<void> {
  await migrate(pool);
  if (existsSync(seededMarker)) {
    await pool.query("truncate api.payment");
    for (const table of ["agent_search", "payment"]) await pool.query(`vacuum analyze api.${table}`);
    await refreshSearchShares({ pool });
    Object.assign(seedTimes, JSON.parse(readFileSync(seededMarker, "utf8")));
    log(`reusing the ${N}-agent cluster in ${dir}`);
    return;
  }
  await pool.query(`
    create schema chain;
    create table chain.agent (id numeric(78,0) primary key, wallet text not null);
    create table chain.agent_run_stats (agent_id numeric(78,0) primary key, completions int not null);`);
  const client = await pool.connect();
  try {
    // Bulk load without secondary indexes, then build them once (definitions read back from the catalog).
    const { rows: indexes } = await client.query<{ name: string; def: string }>(
      `select i.indexrelid::regclass::text name, pg_get_indexdef(i.indexrelid) def
         from pg_index i join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace
        where n.nspname = 'api' and t.relname in ('agent_profile', 'agent_search', 'agent_wallet', 'reputation',
              'verification')
          and not exists (select 1 from pg_constraint c where c.conindid = i.indexrelid)`,
    );
    for (const ix of indexes) await client.query(`drop index ${ix.name}`);
    const sql = readFileSync(join(repoRoot, "bench", "seed-agents.sql"), "utf8").replace(/:n\b/g, String(N));
    let t = performance.now();
    await client.query(sql);
    await client.query(
      `insert into chain.agent_run_stats select i, (random() * 50)::int from generate_series(1, ${N}, 3) i`,
    );
    seedTimes.rows = performance.now() - t;
    t = performance.now();
    await client.query("set maintenance_work_mem = '512MB'");
    for (const ix of indexes) await client.query(ix.def);
    seedTimes.indexes = performance.now() - t;
    t = performance.now();
    for (const table of ["agent_search", "agent_profile", "reputation", "agent_wallet", "verification"])
      await client.query(`vacuum analyze api.${table}`);
    await client.query("vacuum analyze chain.agent_run_stats");
    await refreshSearchShares({ pool }); // what the search-stats job does hourly
    seedTimes.vacuum = performance.now() - t;
  } finally {
    client.release();
  }
  writeFileSync(seededMarker, JSON.stringify(seedTimes));
  log(
    `seeded ${N} agents: rows ${(seedTimes.rows! / 1000).toFixed(1)} s, indexes ${(seedTimes.indexes! / 1000).toFixed(1)} s, vacuum analyze ${(seedTimes.vacuum! / 1000).toFixed(1)} s`,
  );
}

// ---------- payments ----------
const recipient = privateKeyToAccount(`0x${"42".repeat(32)}`).address;
const payers = Array.from({ length: 8 }, () => {
  const key = randomBytes(32);
  return { key, address: privateKeyToAccount(toHex(key)).address };
});
const require = (await import("node:module")).createRequire(import.meta.url);
const secp = require(require.resolve("secp256k1", { paths: [join(repoRoot, "api")] })) as {
  ecdsaSign(msg: Uint8Array, key: Uint8Array): { signature: Uint8Array; recid: number };
};
const struct = specPaymentStruct(84532);
let nonceCounter = 0;

/** `count` fresh x-payment headers for `endpoint` (libsecp256k1 signing; viem signs the same bytes, slower). */
function signHeaders(endpoint: string, count: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const payer = payers[i % payers.length]!;
    const message = {
      payer: payer.address,
      recipient,
      amount: 1_000_000_000_000_000n,
      endpoint,
      nonce: `bench-${nonceCounter++}`,
    };
    const { signature, recid } = secp.ecdsaSign(struct.digest(message), payer.key);
    out.push(
      JSON.stringify({
        ...message,
        amount: message.amount.toString(),
        signature: `${toHex(signature)}${(27 + recid).toString(16)}`,
      }),
    );
  }
  return out;
}

// ---------- API process ----------
async function startApiProcess(cache: boolean): Promise<string> {
  const port = await freePort();
  const deploymentsFile = join(dir, "deployments.json");
  const address = (i: number) => `0x${(i + 1).toString(16).padStart(40, "0")}`;
  writeFileSync(
    deploymentsFile,
    JSON.stringify({
      network: "bench",
      chainId: 84532,
      usdc: { address: address(100), name: "USDC", version: "2", decimals: 6 },
      treasury: recipient,
      startBlock: 0,
      // Every contract the deployments schema names (a hand-kept list broke when SubscriptionVault came in).
      contracts: Object.fromEntries(contractNames.map((name, i) => [name, { address: address(i), startBlock: 0 }])),
      deployedAt: new Date().toISOString(),
    }),
  );
  const tsx = join(repoRoot, "node_modules", ".bin", "tsx");
  apis.push(
    spawn(tsx, ["bench/search-server.ts"], {
      cwd: repoRoot,
      stdio: ["ignore", "inherit", "inherit"],
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        DEPLOYMENTS_FILE: deploymentsFile,
        RPC_URL: "http://127.0.0.1:9", // the spec scheme never touches the chain
        RELAYER_URL: "http://127.0.0.1:9",
        RELAYER_TOKEN: "bench-relayer-token-000",
        ADMIN_TOKEN: "bench-admin-token-000000",
        KEY_ENCRYPTION_KEY: `0x${"11".repeat(32)}`,
        PLATFORM_RECIPIENT_ADDRESS: recipient,
        INDEXER_SCHEMA: "chain",
        JOBS_ENABLED: "false",
        LOG_LEVEL: "warn",
        PORT: String(port),
        NODE_ENV: "production",
        // The per-IP public limiter would answer 429 to the unpaid baseline at thousands of requests/s.
        RATE_LIMIT_MULTIPLIER: process.env.RATE_LIMIT_MULTIPLIER ?? "1000000",
        PAYMENT_RECONCILE_INTERVAL_MS: "3600000",
        SEARCH_CACHE_TTL_MS: cache ? "5000" : "0",
        NODE_OPTIONS: process.env.BENCH_API_NODE_OPTIONS ?? "",
      },
    }),
  );
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200; i++) {
    const ok = await fetch(`${url}/bench/static`)
      .then((r) => r.ok)
      .catch(() => false);
    if (ok) return url;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error("bench API did not start");
}

// ---------- scenarios (bench/lib/search-scenarios.ts) ----------

interface Outcome {
  requests: number;
  rps: number;
  p50: number;
  p95: number;
  p99: number;
  errors: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]! : Number.NaN;

/** One autocannon instance per API process (connections split evenly), latencies merged. */
async function run(urls: string[], s: Scenario, connections: number, duration: number, headers: string[]) {
  let next = 0;
  const latencies: number[] = [];
  let errors = 0;
  const outcomes = await Promise.all(
    urls.map((url) => {
      let instance!: autocannon.Instance;
      const done = new Promise<autocannon.Result>((resolve, reject) => {
        instance = autocannon(
          {
            url,
            connections: Math.max(1, Math.round(connections / urls.length)),
            duration,
            requests: [
              {
                method: s.method,
                path: s.path,
                setupRequest: (req) => {
                  const h: Record<string, string> = { "content-type": "application/json" };
                  if (s.paid) h["x-payment"] = headers[next++ % headers.length]!;
                  return { ...req, headers: h, body: s.body ? JSON.stringify(s.body()) : undefined } as typeof req;
                },
              },
            ],
          },
          (err, res) => (err ? reject(err) : resolve(res)),
        );
      });
      instance.on("response", (_client: unknown, status: number, _bytes: number, ms: number) => {
        latencies.push(ms);
        if (status >= 300) errors++;
      });
      return done;
    }),
  );
  latencies.sort((a, b) => a - b);
  const seconds = Math.max(...outcomes.map((o) => o.duration));
  return {
    requests: latencies.length,
    rps: latencies.length / seconds,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    errors: errors + outcomes.reduce((n, o) => n + o.errors + o.timeouts, 0),
  } satisfies Outcome;
}

/** EXPLAIN ANALYZE of the passes one sample request runs (the walk, then the GIN pass if the walk falls short). */
async function explain(s: Scenario): Promise<string> {
  if (s.path !== SEARCH) return "";
  const { searchStatement, hasIndexedCondition } = await import("../api/src/stores/search/query.ts");
  const { chainViews } = await import("../api/src/db/index.ts");
  const f = { limit: 20, ...(s.body!() as object) };
  const out: string[] = [];
  for (const pass of ["walk", hasIndexedCondition(f) ? "match" : "rest"] as const) {
    const q = searchStatement(pass, chainViews("chain").names, f, false);
    const { rows } = await pool.query(`explain (analyze, costs off, timing on) ${q.text}`, q.values);
    out.push(`-- ${pass} pass\n${rows.map((r) => r["QUERY PLAN"]).join("\n")}`);
    // The page query answers one row; `found` counts the page rows it saw (limit + 1 means the walk answered).
    const { rows: page } = await pool.query(q.text, q.values);
    if (pass === "walk" && page[0].found > f.limit) break;
  }
  return out.join("\n\n");
}

// ---------- main ----------
interface Row {
  s: Scenario;
  config: Config;
  single: Outcome;
  loaded: Outcome;
  /** Share of the searches answered from the API processes' caches (during both measured runs). */
  hitRatio: number | undefined;
  /** API processes' CPU time per request of the loaded run (µs): steadier than req/s on a shared machine. */
  cpuPerRequest: number;
  /** Postgres's CPU time per request of the loaded run (µs, every process of the cluster). */
  dbCpuPerRequest: number;
  /** This process's CPU time per request of the loaded run (µs): autocannon, the load generator. */
  loadCpuPerRequest: number;
}

/**
 * CPU time the cluster's processes have used so far (µs, user + system from /proc): the postmaster with its reaped
 * children plus every live child (backends, walwriter, ...). Linux only; NaN elsewhere.
 */
function postgresCpuMicros(): number {
  const pid = embeddedPostgresPid(join(dir, "pg"));
  if (pid === undefined || !existsSync("/proc/self/stat")) return Number.NaN;
  const ticksPerSecond = 100; // USER_HZ, 100 on every Linux the benchmark runs on
  // Fields after the ")" that ends the command: state is [0], ppid [1], utime [11], stime [12], cutime [13], cstime [14].
  const fields = (p: string) => {
    try {
      const stat = readFileSync(`/proc/${p}/stat`, "utf8");
      return stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    } catch {
      return undefined; // exited meanwhile
    }
  };
  let ticks = 0;
  const own = fields(String(pid));
  if (own) ticks += [11, 12, 13, 14].reduce((n, i) => n + Number(own[i]), 0);
  for (const p of readdirSync("/proc")) {
    if (!/^\d+$/.test(p)) continue;
    const f = fields(p);
    if (f && Number(f[1]) === pid) ticks += Number(f[11]) + Number(f[12]);
  }
  return (ticks / ticksPerSecond) * 1e6;
}

const ownCpuMicros = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};

/** CPU time the API processes have used so far (µs). */
async function apiCpuMicros(urls: string[]): Promise<number> {
  const all = await Promise.all(urls.map((u) => fetch(`${u}/bench/cpu`).then((r) => r.json())));
  return all.reduce((n: number, b: { micros: number }) => n + b.micros, 0);
}

async function cacheStats(urls: string[]): Promise<{ hits: number; misses: number }> {
  const all = await Promise.all(urls.map((u) => fetch(`${u}/bench/cache`).then((r) => r.json())));
  return all.reduce((a, b) => ({ hits: a.hits + b.hits, misses: a.misses + b.misses }), { hits: 0, misses: 0 });
}
class SeedOnly extends Error {}
const results: Row[] = [];
const plans: { s: Scenario; plan: string }[] = [];
try {
  await timed("migrate + seed", seed);
  if (process.env.BENCH_SEED_ONLY) throw new SeedOnly();
  await timed("size shared_buffers and prewarm", sizeAndWarm);
  for (const config of CONFIGS) {
    const urls: string[] = [];
    while (urls.length < config.processes) urls.push(await startApiProcess(config.cache));
    const chosen = scenarios.filter(
      (x) => (!ONLY || ONLY.some((o) => x.name.includes(o))) && (config.cache || x.path === SEARCH),
    );
    for (const s of chosen) {
      // Enough fresh payments for the warm-up and both runs at up to 3,000 requests/s.
      const headers = s.paid ? signHeaders(s.paid, (WARMUP + 2 * DURATION) * 3000) : [];
      await run(urls, s, CONNECTIONS, WARMUP, headers.splice(0, WARMUP * 3000));
      const before = await cacheStats(urls);
      const single = await run(urls.slice(0, 1), s, 1, DURATION, headers.splice(0, DURATION * 3000));
      const cpuBefore = await apiCpuMicros(urls);
      const [dbBefore, loadBefore] = [postgresCpuMicros(), ownCpuMicros()];
      const loaded = await run(urls, s, CONNECTIONS, DURATION, headers);
      const perRequest = (micros: number) => micros / Math.max(1, loaded.requests);
      const loadCpuPerRequest = perRequest(ownCpuMicros() - loadBefore);
      const dbCpuPerRequest = perRequest(postgresCpuMicros() - dbBefore);
      const cpuPerRequest = perRequest((await apiCpuMicros(urls)) - cpuBefore);
      const after = await cacheStats(urls);
      const lookups = after.hits + after.misses - before.hits - before.misses;
      const hitRatio = lookups > 0 ? (after.hits - before.hits) / lookups : undefined;
      results.push({ s, config, single, loaded, hitRatio, cpuPerRequest, dbCpuPerRequest, loadCpuPerRequest });
      if (config === CONFIGS[0]) plans.push({ s, plan: await explain(s) });
      log(
        `[${configName(config)}] ${s.name}: 1 conn p50 ${single.p50.toFixed(1)} p95 ${single.p95.toFixed(1)} ms | ${CONNECTIONS} conns ${loaded.rps.toFixed(0)} req/s p50 ${loaded.p50.toFixed(1)} p95 ${loaded.p95.toFixed(1)} p99 ${loaded.p99.toFixed(1)} ms, errors ${loaded.errors}, CPU µs/req API ${cpuPerRequest.toFixed(0)} Postgres ${dbCpuPerRequest.toFixed(0)} autocannon ${loadCpuPerRequest.toFixed(0)}, cache hits ${hitRatio === undefined ? "-" : `${(hitRatio * 100).toFixed(0)}%`}`,
      );
    }
    for (const api of apis.splice(0)) api.kill("SIGTERM");
  }
  const count = async (sql: string) => (await pool.query(sql)).rows[0].n as string;
  const payments = await count("select count(*)::text n from api.payment");
  const fmt = (n: number) => (Number.isFinite(n) ? n.toFixed(n < 10 ? 1 : 0) : "-");
  // "vs static" compares with the static baseline of the first configuration with the same process count.
  const baseline = (c: Config) =>
    results.find((r) => r.config.processes === c.processes && r.s === scenarios[0])?.loaded.rps;
  const table = (config: Config) => {
    const rows = results.filter((r) => r.config === config);
    const base = baseline(config);
    return rows
      .map(
        ({ s, single, loaded, hitRatio, cpuPerRequest, dbCpuPerRequest, loadCpuPerRequest }) =>
          `| ${s.name} | ${fmt(single.p50)} / ${fmt(single.p95)} / ${fmt(single.p99)} | ${fmt(loaded.rps)} | ${fmt(loaded.p50)} | ${fmt(loaded.p95)} | ${fmt(loaded.p99)} | ${base ? (loaded.rps / base).toFixed(2) : "-"} | ${hitRatio === undefined ? "-" : `${(hitRatio * 100).toFixed(0)}%`} | ${loaded.errors} | ${cpuPerRequest.toFixed(0)} / ${fmt(dbCpuPerRequest)} / ${loadCpuPerRequest.toFixed(0)} |`,
      )
      .join("\n");
  };
  const tables = CONFIGS.map(
    (c) => `### ${configName(c)}

| Scenario | 1 connection p50 / p95 / p99 ms | ${CONNECTIONS} connections req/s | p50 ms | p95 ms | p99 ms | vs static | cache hits | non-2xx | CPU µs/req: API / Postgres / autocannon |
|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|
${table(c)}`,
  ).join("\n\n");
  const md = `${N.toLocaleString("en-US")} synthetic agents, embedded PostgreSQL 18 (shared_buffers ${SHARED_BUFFERS}, search table and
indexes prewarmed: ${sizes.join(", ")}; synchronous commit) with the API's migrations, seeded by \`bench/seed-agents.sql\`; the API
(\`bench/search-server.ts\`: \`createApp\` plus a static and a payment-only route on the same app) in 1 or 2 Node
${process.version} processes on the same database (autocannon connections split evenly); autocannon in the benchmark
process. Every paid request carries a fresh spec \`x-payment\` (EIP-712 Payment signed by one of 8 payers, unique
nonce), verified and recorded in \`api.payment\` before the answer. Run ${started.toISOString()} on ${cpus().length}
CPU(s) (${cpus()[0]?.model}) shared by Postgres, the API processes, autocannon and other work on the machine (load
average at the end ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}).

\`pnpm exec tsx bench/search.ts ${N}\` (BENCH_DURATION=${DURATION} s per run, BENCH_CONNECTIONS=${CONNECTIONS},
BENCH_CONFIGS=${CONFIGS.map((c) => `${c.processes}:${c.cache ? "cache" : "nocache"}`).join(",")}). "1 connection" is one client in a
loop (latency without queueing); the loaded columns are ${CONNECTIONS} concurrent connections. "cache hits" is the share
of searches the API processes answered from their search cache (emptied on any change to the search index; with
random queries it only helps repeated ones, so "search cache off" shows the database path alone).

Seeding: rows ${(seedTimes.rows! / 1000).toFixed(0)} s, indexes ${(seedTimes.indexes! / 1000).toFixed(0)} s,
vacuum analyze ${(seedTimes.vacuum! / 1000).toFixed(0)} s.

${tables}

Payments recorded during the run: ${payments}.

Targets: p95 < 30 ms for any query, >= 1,000 paid searches/s.

## Scenarios

${scenarios.map((s) => `- **${s.name}**: ${s.description}`).join("\n")}

## Sample plans (EXPLAIN ANALYZE of the page query)

${plans
  .filter((r) => r.plan)
  .map((r) => `### ${r.s.name}\n\n\`\`\`\n${r.plan}\n\`\`\``)
  .join("\n\n")}
`;
  log(`wrote ${writeResults("search", "Paid search benchmark", md)}`);
} catch (error) {
  if (!(error instanceof SeedOnly)) throw error;
} finally {
  for (const api of apis) api.kill("SIGTERM");
  await pool.end();
  await db.stop();
  if (!KEEP_DIR) rmSync(dir, { recursive: true, force: true });
}

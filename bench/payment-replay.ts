// What the payment replay record costs: spec-scheme payments (x-payment) are kept for good, since a signed Payment
// has no expiry and its (payer, nonce) row is the only thing that stops a replay. This fills api.payment with
// realistic rows on a real (embedded) Postgres and reports, at growing sizes, the bytes per million paid requests
// and the cost of the replay lookup (primary-key b-tree: its depth, pages read and latency grow as log n).
//   pnpm exec tsx bench/payment-replay.ts            (BENCH_ROWS=1000000 by default)
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { repoRoot } from "../scripts/lib/chain.ts";
import { startEmbeddedPostgres } from "../scripts/lib/postgres.ts";
import { freePort } from "../scripts/lib/stack.ts";

const TOTAL = Number(process.env.BENCH_ROWS ?? 1_000_000);
const CHECKPOINTS = [10_000, 100_000, 1_000_000, 10_000_000].filter((n) => n <= TOTAL);
const LOOKUPS = 2_000;

const dir = mkdtempSync(join(tmpdir(), "agenthub-payment-bench-"));
const db = await startEmbeddedPostgres({ dir: join(dir, "pg"), port: await freePort(), log: () => {} });
const pool = new pg.Pool({ connectionString: db.url, max: 2 });

interface Point {
  rows: number;
  totalBytes: number;
  heapBytes: number;
  indexBytes: number;
  bytesPerMillion: number;
  btreeLevels: number | null;
  pagesPerLookup: number;
  lookupP50Us: number;
  lookupP99Us: number;
  replayInsertP50Us: number;
}

try {
  await pool.query("create schema api");
  for (const file of ["001_init.sql", "030_payments.sql"]) {
    await pool.query(readFileSync(join(repoRoot, "api", "migrations", file), "utf8"));
  }
  const pageinspect = await pool
    .query("create extension if not exists pageinspect")
    .then(() => true)
    .catch(() => false);

  // A spec payment as the gate stores it: checksummed-length payer and recipient, a UUID nonce, 18-decimal amount.
  const fill = (from: number, to: number) =>
    pool.query(
      `insert into api.payment (scheme, payer, nonce, recipient, amount, endpoint, status, created_at)
       select 'agenthub', '0x' || substr(md5('payer' || (i % 50000)) || md5('p' || (i % 50000)), 1, 40),
              (md5('nonce' || i)::uuid)::text, '0x' || substr(md5('recipient') || md5('r'), 1, 40),
              1000000000000000, '/api/intelligence/search', 'COMPLETED', now() - make_interval(secs => i)
         from generate_series($1::int, $2::int) i`,
      [from, to],
    );

  const points: Point[] = [];
  let filled = 0;
  for (const checkpoint of CHECKPOINTS) {
    for (let start = filled + 1; start <= checkpoint; start += 100_000) {
      await fill(start, Math.min(checkpoint, start + 99_999));
    }
    filled = checkpoint;
    await pool.query("vacuum analyze api.payment");
    const sizes = (
      await pool.query<{ total: string; heap: string; index: string }>(
        `select pg_total_relation_size('api.payment')::text total, pg_relation_size('api.payment')::text heap,
                pg_indexes_size('api.payment')::text index`,
      )
    ).rows[0]!;
    const levels = pageinspect
      ? Number((await pool.query<{ level: number }>("select level from bt_metap('api.payment_pkey')")).rows[0]!.level) +
        1
      : null;
    // Existing (payer, nonce) pairs, picked at random: the gate's replay check looks up exactly this key.
    const keys = (
      await pool.query<{ payer: string; nonce: string }>(
        `select payer, nonce from api.payment tablesample bernoulli (${Math.min(100, (100 * LOOKUPS * 4) / checkpoint)})
          limit ${LOOKUPS}`,
      )
    ).rows;
    const client = await pool.connect();
    const lookup: number[] = [];
    const replay: number[] = [];
    let pages = 0;
    try {
      const text = "select 1 from api.payment where scheme = 'agenthub' and payer = $1 and nonce = $2";
      await client.query({ name: "lookup", text, values: ["x", "y"] });
      for (const k of keys) {
        const t = process.hrtime.bigint();
        await client.query({ name: "lookup", text, values: [k.payer, k.nonce] });
        lookup.push(Number(process.hrtime.bigint() - t) / 1000);
      }
      // The gate's claim: an insert that loses on the primary key (a replayed payment), rolled back.
      for (const k of keys.slice(0, 500)) {
        const t = process.hrtime.bigint();
        await client.query(
          `insert into api.payment (scheme, payer, nonce, recipient, amount, endpoint, status)
           values ('agenthub', $1, $2, '0x0', 1, '/api/intelligence/search', 'PENDING') on conflict do nothing`,
          [k.payer, k.nonce],
        );
        replay.push(Number(process.hrtime.bigint() - t) / 1000);
      }
      const plan = await client.query<{
        "QUERY PLAN": [{ Plan: { "Shared Hit Blocks": number; "Shared Read Blocks": number } }];
      }>(
        `explain (analyze, buffers, format json)
         select 1 from api.payment where scheme = 'agenthub' and payer = $1 and nonce = $2`,
        [keys[0]!.payer, keys[0]!.nonce],
      );
      const p = plan.rows[0]!["QUERY PLAN"][0].Plan;
      pages = p["Shared Hit Blocks"] + p["Shared Read Blocks"];
    } finally {
      client.release();
    }
    const pct = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.floor(q * (xs.length - 1))]!;
    const point: Point = {
      rows: checkpoint,
      totalBytes: Number(sizes.total),
      heapBytes: Number(sizes.heap),
      indexBytes: Number(sizes.index),
      bytesPerMillion: Math.round((Number(sizes.total) / checkpoint) * 1_000_000),
      btreeLevels: levels,
      pagesPerLookup: pages,
      lookupP50Us: Math.round(pct(lookup, 0.5)),
      lookupP99Us: Math.round(pct(lookup, 0.99)),
      replayInsertP50Us: Math.round(pct(replay, 0.5)),
    };
    points.push(point);
    console.log(JSON.stringify(point));
  }

  const mb = (b: number) => `${(b / 1024 / 1024).toFixed(1)} MB`;
  const table = points
    .map(
      (p) =>
        `| ${p.rows.toLocaleString("en-US")} | ${mb(p.totalBytes)} (heap ${mb(p.heapBytes)}, indexes ${mb(p.indexBytes)}) | ${mb(p.bytesPerMillion)} | ${p.btreeLevels ?? "n/a"} | ${p.pagesPerLookup} | ${p.lookupP50Us} / ${p.lookupP99Us} | ${p.replayInsertP50Us} |`,
    )
    .join("\n");
  const report = `# Payment replay record: storage and lookup cost

\`bench/payment-replay.ts\`, ${new Date().toISOString().slice(0, 10)}, embedded PostgreSQL, this 2-core machine (shared with
other work: latencies are upper bounds). Rows are spec-scheme payments as the gate stores them (scheme, payer,
nonce = UUID, recipient, amount, endpoint, status, timestamps); 50,000 distinct payers.

| rows | api.payment on disk | per million paid requests | PK b-tree levels | pages read per lookup | lookup p50 / p99 (µs) | replayed-insert p50 (µs) |
|---|---|---|---|---|---|---|
${table}

Spec-scheme rows are never pruned (a signed Payment has no expiry: forgetting its nonce would make it replayable),
so they grow with paid traffic at the rate above; x402 rows are pruned once their authorization has expired (the
token refuses it anyway). The replay check is one primary-key probe on (scheme, payer, nonce): its cost is the
b-tree's depth, which grows with log n (pages read per lookup above), not with the table's size. At 1,000 paid
requests per second (86.4M a day), a year of spec payments would take about
${(((points.at(-1)?.bytesPerMillion ?? 0) * 86.4 * 365) / 1e12).toFixed(1)} TB; archiving them would need an expiry inside the
signed message (a later version of the spec scheme).
`;
  writeFileSync(join(repoRoot, "bench", "results", "payment-replay.md"), report);
  console.log(report);
} finally {
  await pool.end();
  await db.stop();
  rmSync(dir, { recursive: true, force: true });
}

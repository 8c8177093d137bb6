// What an operator relies on: liveness that survives an exhausted pool, readiness that names what is down,
// Prometheus series that move, relayer calls with deadlines, and migrations that refuse edited history.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { runMigrations } from "@agenthub/common/migrate";
import { RelayerClient } from "@agenthub/relayer/client";
import { loadApiEnv } from "../../api/src/env.ts";
import { type RunningApi, startApi } from "../../api/src/server.ts";
import { freePort } from "../../scripts/lib/stack.ts";
import { registerAgent } from "../support/agents.ts";
import { metricValue, scrape } from "../support/metrics.ts";
import { api, db, stack } from "../support/stack.ts";

const started: RunningApi[] = [];
const servers: Server[] = [];
after(async () => {
  for (const running of started) await running.close();
  for (const server of servers) server.close();
  await db.end();
});

/** A second API process in this test process, on the stack's database and chain, with `overrides`. */
async function startTestApi(
  overrides: Record<string, string | undefined>,
): Promise<RunningApi & { get(path: string): Promise<Response> }> {
  const env = loadApiEnv({ ...stack.env, JOBS_ENABLED: "false", LOG_LEVEL: "silent", ...overrides });
  const running = await startApi(env, 0);
  started.push(running);
  return { ...running, get: (path) => fetch(`${running.url}${path}`, { signal: AbortSignal.timeout(10_000) }) };
}

/** A TCP server that accepts connections and never answers: a relayer that hangs. */
async function hangingServer(): Promise<string> {
  const server = createServer(() => {});
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}

describe("operations: metrics", () => {
  it("/metrics needs the metrics token", async () => {
    assert.equal((await fetch(`${stack.apiUrl}/metrics`)).status, 401);
    const wrong = await fetch(`${stack.apiUrl}/metrics`, { headers: { authorization: "Bearer wrong-token-wrong" } });
    assert.equal(wrong.status, 401);
    assert.equal((await fetch(`${stack.relayerUrl}/metrics`)).status, 401);
    // Without METRICS_TOKEN the endpoint is off, not open.
    const off = await startTestApi({ METRICS_TOKEN: undefined });
    const res = await off.get("/metrics");
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: { code: string } }).error.code, "METRICS_DISABLED");
  });

  it("API and relayer counters move after a registration", async () => {
    const route = { method: "POST", route: "/api/agents/register", status: "201" };
    const mint = { function: "AgentIdentity.mintBatch", outcome: "success" };
    const apiBefore = await scrape(stack.apiUrl, stack.secrets.metricsToken);
    const relayerBefore = await scrape(stack.relayerUrl, stack.secrets.metricsToken);

    await registerAgent({ name: "Metrics Probe" });

    const apiAfter = await scrape(stack.apiUrl, stack.secrets.metricsToken);
    const relayerAfter = await scrape(stack.relayerUrl, stack.secrets.metricsToken);
    const delta = (after: string, before: string, name: string, labels: Record<string, string>) =>
      (metricValue(after, name, labels) ?? 0) - (metricValue(before, name, labels) ?? 0);
    assert.equal(delta(apiAfter, apiBefore, "agenthub_http_requests_total", route), 1);
    assert.equal(delta(apiAfter, apiBefore, "agenthub_http_request_duration_seconds_count", route), 1);
    assert.ok(delta(relayerAfter, relayerBefore, "relayer_transactions_total", mint) >= 1);
    assert.ok(
      delta(relayerAfter, relayerBefore, "relayer_http_requests_total", {
        method: "POST",
        route: "/v1/transactions",
        status: "200",
      }) >= 1,
    );
    // Route patterns, never raw paths with ids in them.
    assert.doesNotMatch(apiAfter, /route="\/api\/agents\/\d+/);

    for (const name of [
      "agenthub_indexer_lag_blocks",
      "agenthub_chain_head_block",
      "agenthub_relayer_pending_transactions",
      "agenthub_relayer_signer_balance_eth",
      "agenthub_webhook_deliveries_pending",
      "agenthub_payments_oldest_unsettled_seconds",
    ]) {
      assert.notEqual(metricValue(apiAfter, name, {}), undefined, `${name} missing`);
    }
    assert.ok((metricValue(apiAfter, "agenthub_relayer_signer_balance_eth", {}) ?? 0) > 0);
    assert.ok((metricValue(apiAfter, "agenthub_indexer_lag_blocks", {}) ?? 99) <= 10);
    for (const queue of ["uptime-check", "webhook-dispatch", "reputation-poll"]) {
      assert.notEqual(metricValue(apiAfter, "agenthub_job_queue_depth", { queue, state: "queued" }), undefined, queue);
    }
    for (const status of ["PENDING", "SETTLING"]) {
      const labels = { scheme: "x402-exact", status };
      assert.notEqual(metricValue(apiAfter, "agenthub_payments_unsettled", labels), undefined);
    }
    assert.equal(metricValue(apiAfter, "agenthub_up", { dependency: "indexer" }), 1);
    assert.equal(metricValue(relayerAfter, "relayer_signer_balance_low", {}), 0);
    assert.ok((metricValue(relayerAfter, "relayer_signer_balance_eth", {}) ?? 0) > 0);
  });
});

describe("operations: liveness and readiness", () => {
  it("/health and /ready answer while every connection of the request pool is taken", async () => {
    const running = await startTestApi({ DATABASE_POOL_SIZE: "2" });
    const held = [await running.deps.pool.connect(), await running.deps.pool.connect()];
    let released = false;
    try {
      const waiting = running.deps.pool.query("select 1"); // queued behind the two held connections
      const t0 = performance.now();
      const health = await running.get("/health");
      assert.equal(health.status, 200);
      assert.ok(performance.now() - t0 < 1_000, "liveness waited on the database");
      const ready = await running.get("/ready");
      const body = (await ready.json()) as { ready: boolean; checks: { database: { ok: boolean } } };
      assert.equal(ready.status, 200, JSON.stringify(body));
      assert.equal(body.checks.database.ok, true);
      const metrics = await scrape(running.url, stack.secrets.metricsToken);
      assert.equal(metricValue(metrics, "agenthub_db_pool_connections", { state: "waiting" }), 1);
      for (const client of held) client.release();
      released = true;
      await waiting;
    } finally {
      if (!released) for (const client of held) client.release();
    }
  });

  it("a request that gets no connection within DATABASE_CONNECT_TIMEOUT_MS is 503 SERVICE_BUSY with Retry-After", async () => {
    const running = await startTestApi({ DATABASE_POOL_SIZE: "1", DATABASE_CONNECT_TIMEOUT_MS: "300" });
    const held = await running.deps.pool.connect();
    let released = false;
    try {
      const t0 = performance.now();
      const busy = await running.get("/api/agents?limit=1");
      const elapsed = performance.now() - t0;
      assert.equal(busy.status, 503);
      assert.equal(busy.headers.get("retry-after"), "1");
      assert.equal(((await busy.json()) as { error: { code: string } }).error.code, "SERVICE_BUSY");
      assert.ok(elapsed >= 300 && elapsed < 3_000, `answered after ${elapsed.toFixed(0)} ms`);
      assert.equal((await running.get("/health")).status, 200, "liveness does not use the request pool");
      held.release();
      released = true;
      const served = await running.get("/api/agents?limit=1");
      assert.equal(served.status, 200, "the same request is served once a connection is free");
    } finally {
      if (!released) held.release();
    }
  });

  it("/ready is 503 naming the relayer while it hangs, and a relayed call is a 504 within its deadline", async () => {
    const running = await startTestApi({
      RELAYER_URL: await hangingServer(),
      RELAYER_TIMEOUT_MS: "600",
      READY_TIMEOUT_MS: "400",
    });
    const t0 = performance.now();
    const ready = await running.get("/ready");
    const body = (await ready.json()) as { failing: string[]; checks: Record<string, { ok: boolean; error?: string }> };
    assert.equal(ready.status, 503);
    assert.deepEqual(body.failing, ["relayer"]);
    assert.match(body.checks.relayer!.error ?? "", /did not answer/);
    assert.ok(performance.now() - t0 < 3_000);

    const t1 = performance.now();
    const faucet = await fetch(`${running.url}/api/dev/faucet`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ address: "0x000000000000000000000000000000000000dEaD", eth: "1" }),
    });
    assert.equal(faucet.status, 504);
    assert.equal(((await faucet.json()) as { error: { code: string } }).error.code, "RELAYER_TIMEOUT");
    assert.ok(performance.now() - t1 < 3_000, "the relayer call waited past its deadline");
  });

  it("RelayerClient: unreachable is 503 UNAVAILABLE, hanging is 504 TIMEOUT", async () => {
    const hanging = new RelayerClient(await hangingServer(), "token-token-token-token", { timeoutMs: 300 });
    await assert.rejects(
      hanging.call("AgentIdentity", AgentIdentityAbi, "mint", ["0x000000000000000000000000000000000000dEaD", "x"]),
      (e: Error & { code?: string; status?: number }) => e.code === "TIMEOUT" && e.status === 504,
    );
    const closed = new RelayerClient(`http://127.0.0.1:${await freePort()}`, "token-token-token-token");
    await assert.rejects(closed.status(), (e: Error & { code?: string; status?: number }) => {
      return e.code === "UNAVAILABLE" && e.status === 503;
    });
  });

  it("/ready is 503 while the indexer is more than READY_MAX_INDEXER_LAG_BLOCKS behind or its heartbeat is old", async () => {
    // A views schema whose checkpoint stands at block 1 (Ponder's layout: 10-digit time, 16-digit chain, 16-digit block).
    const schema = `lagging_${Date.now().toString(36)}`;
    await db.query(`create schema ${schema}`);
    await db.query(`create table ${schema}._ponder_checkpoint (chain_name text, latest_checkpoint text)`);
    const checkpoint = `${"1".padStart(10, "0")}${"84532".padStart(16, "0")}${"1".padStart(16, "0")}${"0".repeat(33)}`;
    await db.query(`insert into ${schema}._ponder_checkpoint values ('agenthub', $1)`, [checkpoint]);
    // Ponder's meta row with its heartbeat (ms since the epoch), fresh for now.
    await db.query(`create table ${schema}._ponder_meta (key text primary key, value jsonb)`);
    const beat = (agoMs: number) =>
      db.query(
        `insert into ${schema}._ponder_meta values ('app', jsonb_build_object('heartbeat_at', $1::bigint))
         on conflict (key) do update set value = excluded.value`,
        [Date.now() - agoMs],
      );
    await beat(0);
    try {
      const strict = await startTestApi({ INDEXER_SCHEMA: schema, READY_MAX_INDEXER_LAG_BLOCKS: "2" });
      const res = await strict.get("/ready");
      const body = (await res.json()) as {
        failing: string[];
        checks: { chain: { headBlock: string }; indexer: { lagBlocks: number; indexedBlock: string } };
      };
      assert.equal(res.status, 503);
      assert.deepEqual(body.failing, ["indexer"]);
      assert.equal(body.checks.indexer.indexedBlock, "1");
      assert.equal(body.checks.indexer.lagBlocks, Number(body.checks.chain.headBlock) - 1);
      assert.ok(body.checks.indexer.lagBlocks > 2);

      const lenient = await startTestApi({ INDEXER_SCHEMA: schema, READY_MAX_INDEXER_LAG_BLOCKS: "1000000" });
      const fine = await lenient.get("/ready");
      assert.equal(fine.status, 200);
      const { indexer } = ((await fine.json()) as { checks: { indexer: Record<string, unknown> } }).checks;
      assert.ok((indexer.heartbeatAgeSeconds as number) < 5, JSON.stringify(indexer));
      assert.equal(indexer.maxHeartbeatAgeSeconds, 30);

      // The same checkpoint, but nothing has beaten for a minute: a dead or stalled indexer, whatever the lag says.
      await beat(60_000);
      const stale = await startTestApi({ INDEXER_SCHEMA: schema, READY_MAX_INDEXER_LAG_BLOCKS: "1000000" });
      const dead = await stale.get("/ready");
      const deadBody = (await dead.json()) as { failing: string[]; checks: { indexer: { error: string } } };
      assert.equal(dead.status, 503);
      assert.deepEqual(deadBody.failing, ["indexer"]);
      assert.match(deadBody.checks.indexer.error, /no heartbeat for 6\d s: the indexer is down or stalled/);
    } finally {
      await db.query(`drop schema ${schema} cascade`);
    }
  });

  it("the stack's own /ready is 200", async () => {
    const res = await api("GET", "/ready");
    assert.equal(res.status, 200, JSON.stringify(res.body));
  });
});

describe("operations: migrations", () => {
  it("every applied API and relayer migration carries a checksum", async () => {
    for (const schema of ["api", "relayer"]) {
      const rows = await db.query<{ name: string; checksum: string }>(`select name, checksum from ${schema}.migration`);
      assert.ok(rows.rowCount! >= 2, schema);
      for (const row of rows.rows) assert.match(row.checksum, /^[0-9a-f]{64}$/, `${schema}/${row.name}`);
    }
    const relayer = await db.query<{ name: string }>("select name from relayer.migration order by name");
    assert.deepEqual(
      relayer.rows.map((r) => r.name),
      ["001_tx.sql", "002_fee_replacement.sql"],
    );
  });

  it("an applied migration edited afterwards is refused, and nothing after it is applied", async () => {
    const dir = mkdtempSync(join(tmpdir(), "migrations-"));
    const schema = `migtest_${Date.now().toString(36)}`;
    writeFileSync(join(dir, "001_first.sql"), `create table ${schema}.a (x int);\n`);
    try {
      assert.deepEqual(await runMigrations(db, { schema, dir }), ["001_first.sql"]);
      assert.deepEqual(await runMigrations(db, { schema, dir }), [], "applied once");
      // Line endings do not count as an edit (a checkout with CRLF is the same migration).
      writeFileSync(join(dir, "001_first.sql"), `create table ${schema}.a (x int);\r\n`);
      assert.deepEqual(await runMigrations(db, { schema, dir }), []);

      writeFileSync(join(dir, "001_first.sql"), `create table ${schema}.a (x int, y int);`);
      writeFileSync(join(dir, "002_second.sql"), `create table ${schema}.b (x int);`);
      await assert.rejects(runMigrations(db, { schema, dir }), /001_first\.sql was changed after it was applied/);
      const b = await db.query("select to_regclass($1) as t", [`${schema}.b`]);
      assert.equal(b.rows[0].t, null, "a later migration ran past the refused one");
    } finally {
      await db.query(`drop schema if exists ${schema} cascade`);
    }
  });
});

// Uptime: one scheduled pass per UPTIME_INTERVAL_SECONDS splits the agents that publish endpoints.webhook into
// batch jobs; any API process may run a batch. A batch pings its agents (bounded concurrency), records each
// check once per pass (a retried batch cannot count twice), folds it into per-day aggregates, and recomputes the
// batch's reputation (the spec's "on each uptime check" trigger).
import type { Deps } from "../context.ts";
import { chainClock } from "../lib/chain-time.ts";
import { type CheckResult, checkEndpoint, mapLimit } from "../lib/net/health-check.ts";
import { recomputeAgents } from "../stores/reputation-recompute.ts";

export interface UptimeBatch {
  roundId: string;
  agentIds: number[];
}

export const allowPrivateTargets = (deps: Deps) => deps.env.ALLOW_PRIVATE_UPTIME_TARGETS ?? deps.env.LOCAL_CHAIN;

/** The batches of one pass, in agent id order. */
export async function planUptimePass(deps: Deps, roundId: string): Promise<UptimeBatch[]> {
  const { rows } = await deps.pool.query<{ agent_id: string }>(
    `select p.agent_id::text from api.agent_profile p
      where coalesce(p.endpoints->>'webhook', '') <> ''
        and exists (select 1 from ${deps.views.names.agent} a where a.id = p.agent_id)
      order by p.agent_id`,
  );
  const ids = rows.map((r) => Number(r.agent_id));
  const size = deps.env.UPTIME_BATCH_SIZE;
  const batches: UptimeBatch[] = [];
  for (let i = 0; i < ids.length; i += size) batches.push({ roundId, agentIds: ids.slice(i, i + size) });
  return batches;
}

const RECORD_SQL = `
  with input as (
    select * from jsonb_to_recordset($1::jsonb)
      as x(agent_id bigint, up boolean, status_code int, latency_ms int, error text, target text)
  ),
  ins as (
    insert into api.uptime_check (agent_id, round_id, checked_at, up, status_code, latency_ms, error, target)
    select agent_id, $2, $3::timestamptz, up, status_code, latency_ms, error, target from input
    on conflict (agent_id, round_id) do nothing
    returning agent_id, up, latency_ms
  )
  insert into api.uptime_daily as d (agent_id, day, checks, ups, latency_sum_ms)
  select agent_id, ($3::timestamptz at time zone 'UTC')::date, 1, case when up then 1 else 0 end,
         case when up then coalesce(latency_ms, 0) else 0 end
    from ins
  on conflict (agent_id, day) do update set
    checks = d.checks + excluded.checks, ups = d.ups + excluded.ups,
    latency_sum_ms = d.latency_sum_ms + excluded.latency_sum_ms`;

export async function runUptimeBatch(deps: Deps, batch: UptimeBatch): Promise<{ checked: number; up: number }> {
  const { rows } = await deps.pool.query<{ agent_id: string; webhook: string }>(
    `select agent_id::text, endpoints->>'webhook' webhook from api.agent_profile
      where agent_id = any($1::bigint[]) and coalesce(endpoints->>'webhook', '') <> ''`,
    [batch.agentIds.map(String)],
  );
  const opts = { timeoutMs: deps.env.UPTIME_TIMEOUT_MS, allowPrivate: allowPrivateTargets(deps) };
  const results: (CheckResult & { agentId: number })[] = await mapLimit(
    rows,
    deps.env.UPTIME_CONCURRENCY,
    async (row) => ({ agentId: Number(row.agent_id), ...(await checkEndpoint(row.webhook, opts)) }),
  );
  if (results.length === 0) return { checked: 0, up: 0 };
  const now = await chainClock(deps).now();
  await deps.pool.query(RECORD_SQL, [
    JSON.stringify(
      results.map((r) => ({
        agent_id: r.agentId,
        up: r.up,
        status_code: r.statusCode,
        latency_ms: r.latencyMs,
        error: r.error,
        target: r.target.slice(0, 2048),
      })),
    ),
    batch.roundId,
    new Date(Number(now) * 1000).toISOString(),
  ]);
  await recomputeAgents(
    deps,
    results.map((r) => r.agentId),
    "uptime",
    now,
  );
  return { checked: results.length, up: results.filter((r) => r.up).length };
}

/** Drops raw checks older than two days; the 30-day figures live in the daily aggregates (kept 35 days). */
export async function pruneUptime(deps: Deps, now: bigint): Promise<void> {
  const at = new Date(Number(now) * 1000);
  await deps.pool.query("delete from api.uptime_check where checked_at < $1::timestamptz - interval '2 days'", [
    at.toISOString(),
  ]);
  await deps.pool.query("delete from api.uptime_daily where day < ($1::timestamptz at time zone 'UTC')::date - 35", [
    at.toISOString(),
  ]);
}

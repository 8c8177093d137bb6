// Uptime checks (api.uptime_check, one row per agent and round) and their daily aggregates (api.uptime_daily), which
// the reputation's 30-day uptime reads. A round's results are written in one statement; a repeated round adds
// nothing (the check's key).
import type { Deps } from "../context.ts";

/** Agents with a webhook endpoint to check, in id order. */
export async function uptimeTargets(deps: Pick<Deps, "pool" | "views">): Promise<number[]> {
  const { rows } = await deps.pool.query<{ agent_id: string }>(
    `select p.agent_id::text from api.agent_profile p
      where coalesce(p.endpoints->>'webhook', '') <> ''
        and exists (select 1 from ${deps.views.names.agent} a where a.id = p.agent_id)
      order by p.agent_id`,
  );
  return rows.map((r) => Number(r.agent_id));
}

/** The webhook endpoints of `agentIds` (agents without one are left out). */
export async function webhookEndpoints(
  deps: Pick<Deps, "pool">,
  agentIds: number[],
): Promise<{ agentId: number; webhook: string }[]> {
  const { rows } = await deps.pool.query<{ agent_id: string; webhook: string }>(
    `select agent_id::text, endpoints->>'webhook' webhook from api.agent_profile
      where agent_id = any($1::bigint[]) and coalesce(endpoints->>'webhook', '') <> ''`,
    [agentIds.map(String)],
  );
  return rows.map((r) => ({ agentId: Number(r.agent_id), webhook: r.webhook }));
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

export interface UptimeResult {
  agentId: number;
  up: boolean;
  statusCode: number | null;
  latencyMs: number | null;
  error: string | null;
  target: string;
}

/** Records round `roundId`'s results at `at` and adds them to the day's aggregates. */
export async function recordUptimeChecks(
  deps: Pick<Deps, "pool">,
  roundId: string,
  at: Date,
  results: UptimeResult[],
): Promise<void> {
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
    roundId,
    at.toISOString(),
  ]);
}

/** Drops raw checks older than two days; the 30-day figures live in the daily aggregates (kept 35 days). */
export async function pruneUptime(deps: Pick<Deps, "pool">, at: Date): Promise<void> {
  await deps.pool.query("delete from api.uptime_check where checked_at < $1::timestamptz - interval '2 days'", [
    at.toISOString(),
  ]);
  await deps.pool.query("delete from api.uptime_daily where day < ($1::timestamptz at time zone 'UTC')::date - 35", [
    at.toISOString(),
  ]);
}

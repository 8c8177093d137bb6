// Reputation jobs: the daily bulk recompute, the poll that reacts to indexed run/stake changes (run completion or
// failure) without coupling the runs feature to reputation, and the daily verification expiry.
import type { Deps } from "../context.ts";
import { chainClock } from "../lib/chain-time.ts";
import { recomputeAgents, recomputeAll } from "../stores/reputation-recompute.ts";
import { pruneUptime } from "./uptime.ts";

export async function dailyReputation(deps: Deps) {
  const now = await chainClock(deps).now();
  const stats = await recomputeAll(deps, "daily", now);
  await pruneUptime(deps, now);
  return stats;
}

interface PollCursor {
  /** Largest indexed updated_at (block timestamp, seconds) already folded in. */
  ts: string;
  /** Agents already folded in at exactly `ts` (later rows with the same timestamp are still picked up). */
  ids: string[];
}

const CURSOR = "reputation-poll";

/**
 * Recomputes the agents whose chain.agent_run_stats or chain.stake row changed since the last pass. The cursor is
 * the largest indexed updated_at seen plus the agents seen at that exact second, so a row the indexer writes later
 * with the same block timestamp is not missed. A crash between recompute and cursor write only repeats work.
 */
export async function pollRunChanges(deps: Deps): Promise<{ agents: number }> {
  const schema = deps.views.names;
  const cur = await deps.pool.query<{ value: PollCursor }>("select value from api.job_cursor where name = $1", [
    CURSOR,
  ]);
  const cursor: PollCursor = cur.rows[0]?.value ?? { ts: "0", ids: [] };
  const { rows } = await deps.pool.query<{ agent_id: string; updated_at: string }>(
    `select agent_id::text, updated_at::text from ${schema.agentRunStats} where updated_at >= $1::numeric
     union
     select agent_id::text, updated_at::text from ${schema.stake} where updated_at >= $1::numeric`,
    [cursor.ts],
  );
  if (rows.length === 0) return { agents: 0 };
  const seen = new Set(cursor.ids);
  const changed = new Set<number>();
  let maxTs = BigInt(cursor.ts);
  for (const r of rows) {
    const ts = BigInt(r.updated_at);
    if (ts > maxTs) maxTs = ts;
    if (ts === BigInt(cursor.ts) && seen.has(r.agent_id)) continue;
    changed.add(Number(r.agent_id));
  }
  if (changed.size > 0) {
    const now = await chainClock(deps).now();
    const ids = [...changed];
    for (let i = 0; i < ids.length; i += 5_000) await recomputeAgents(deps, ids.slice(i, i + 5_000), "run", now);
  }
  const atMax = rows.filter((r) => BigInt(r.updated_at) === maxTs).map((r) => r.agent_id);
  const next: PollCursor = {
    ts: maxTs.toString(),
    ids: [...new Set(maxTs === BigInt(cursor.ts) ? [...cursor.ids, ...atMax] : atMax)],
  };
  await deps.pool.query(
    `insert into api.job_cursor (name, value, updated_at) values ($1, $2::jsonb, now())
     on conflict (name) do update set value = excluded.value, updated_at = now()`,
    [CURSOR, JSON.stringify(next)],
  );
  return { agents: changed.size };
}

/** VERIFIED past expiresAt -> EXPIRED (and stale PENDING challenges too); affected reputations are recomputed. */
export async function expireVerifications(deps: Deps): Promise<{ expired: number }> {
  const now = await chainClock(deps).now();
  const at = new Date(Number(now) * 1000).toISOString();
  const { rows } = await deps.pool.query<{ agent_id: string; was: string }>(
    `update api.verification v set status = 'EXPIRED'
       from (select id, status was from api.verification
              where status in ('VERIFIED', 'PENDING') and expires_at <= $1::timestamptz for update skip locked) e
      where v.id = e.id
      returning v.agent_id::text, e.was`,
    [at],
  );
  // A stake badge lasts only while the stake it proves stays locked: withdrawal requests and slashes end it.
  const lapsed = await deps.pool.query<{ agent_id: string }>(
    `update api.verification v set status = 'EXPIRED', message = 'the locked stake fell below the minimum'
       from api.verification x left join ${deps.views.names.stake} s on s.agent_id = x.agent_id
      where v.id = x.id and x.type = 'stake' and x.status = 'VERIFIED'
        and coalesce(s.amount - s.pending_withdrawal, 0) < x.min_stake_amount
      returning v.agent_id::text`,
  );
  const affected = [
    ...new Set([
      ...rows.filter((r) => r.was === "VERIFIED").map((r) => Number(r.agent_id)),
      ...lapsed.rows.map((r) => Number(r.agent_id)),
    ]),
  ];
  if (affected.length > 0) await recomputeAgents(deps, affected, "expiry", now);
  return { expired: rows.length + lapsed.rows.length };
}

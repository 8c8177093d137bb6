// Recomputes stored reputation from its sources: indexed run stats (chain), uptime aggregates, attestations and
// verifications (API tables). One code path serves a few agents (after a trigger) and all agents (daily job):
// gather inputs in one query per batch, compute in TypeScript (domain/reputation.ts), and write back only the
// agents whose values changed, snapshotting changed scores into api.reputation_history.
import { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type pg from "pg";
import { from as copyFrom } from "pg-copy-streams";
import type { Deps } from "../context.ts";
import type { ChainNames } from "../db/index.ts";
import { withTransaction } from "../db/transaction.ts";
import {
  computeScores,
  NEW_AGENT_GRACE_SECONDS,
  REPUTATION_FORMULA_VERSION,
  type ReputationInputs,
  type ReputationScores,
  type StoredInputs,
  toStoredInputs,
  UPTIME_WINDOW_DAYS,
} from "../domain/reputation.ts";
import { chainClock } from "../lib/chain-time.ts";
import { isoFromSeconds as iso } from "../lib/time.ts";
import { queueOrgEvents } from "../stores/webhook-outbox.ts";

export interface ReputationDeps {
  pool: pg.Pool;
  views: { names: ChainNames };
}

/** What caused a recalculation (kept with each history snapshot). */
export type RecomputeTrigger =
  | "daily"
  | "run"
  | "attestation"
  | "verification"
  | "uptime"
  | "expiry"
  | "read"
  | "manual"
  | "bench";

export interface RecomputeStats {
  agents: number;
  changed: number;
  snapshots: number;
  ms: number;
}

interface InputRow {
  id: string;
  registered_at: string;
  total_claimed: number;
  completions: number;
  failures: number;
  capabilities: string[];
  programming_langs: string[];
  checks: number;
  ups: number;
  latency_sum: number;
  att_count: number;
  att_wsum: number;
  att_w: number;
  exp_wsum: number;
  exp_w: number;
  badges: string[];
  skills: Record<string, number> | null;
  prev_score: number | null;
  prev_fp: string | null;
  fp: string;
}

/** First UTC day inside the uptime window ending at `now` (the window is the last 30 calendar days, today included). */
export function windowStartDay(now: bigint): string {
  const d = new Date(Number(now) * 1000);
  d.setUTCHours(0, 0, 0, 0);
  d.setUTCDate(d.getUTCDate() - (UPTIME_WINDOW_DAYS - 1));
  return d.toISOString().slice(0, 10);
}

/**
 * The inputs of a set of agents. $1 = first day of the uptime window, $2 = now (timestamptz) for badge validity.
 * "ids": the agents in $3 (numeric[]), each source read through its index. "range": every agent with
 * $3 <= id <= $4, each source read once for the whole range (the bulk path).
 */
function inputsSql(schema: ChainNames, mode: "ids" | "range"): string {
  const agents = mode === "ids" ? "a.id = any($3::numeric[])" : "a.id between $3::numeric and $4::numeric";
  const scope = (col: string) =>
    mode === "ids" ? `${col} in (select id from a)` : `${col} between $3::bigint and $4::bigint`;
  return `
  with a as materialized (
    -- Indexed ids are numeric; the API's tables key agents by bigint (compare like with like so indexes apply).
    select a.id nid, a.id::bigint id, a.registered_at from ${schema.agent} a where ${agents}
  ),
  u as (
    select agent_id, sum(checks)::int checks, sum(ups)::int ups, sum(latency_sum_ms)::float8 latency_sum
      from api.uptime_daily where day >= $1::date and ${scope("agent_id")} group by agent_id
  ),
  t as (
    select subject_id agent_id, count(*)::int n, sum(rating * weight)::float8 wsum, sum(weight)::float8 w,
           coalesce(sum(rating * weight) filter (where category = 'expertise'), 0)::float8 ewsum,
           coalesce(sum(weight) filter (where category = 'expertise'), 0)::float8 ew
      from api.attestation where ${scope("subject_id")} group by subject_id
  ),
  v as (
    select agent_id, array_agg(distinct badge) badges,
           jsonb_object_agg(skill_name, best) filter (where skill_name is not null) skills
      from (
        select agent_id, badge, skill_name, max(score) over (partition by agent_id, skill_name) best
          from api.verification
         where status = 'VERIFIED' and expires_at > $2::timestamptz and badge is not null and ${scope("agent_id")}
      ) x group by agent_id
  ),
  j as (
    select a.nid, a.id::text, a.registered_at::text,
           (extract(epoch from $2::timestamptz) - a.registered_at < ${NEW_AGENT_GRACE_SECONDS}) young,
           coalesce(st.total_claimed, 0)::int total_claimed, coalesce(st.completions, 0)::int completions,
           coalesce(st.failures, 0)::int failures,
           coalesce(p.capabilities, '{}') capabilities, coalesce(p.programming_langs, '{}') programming_langs,
           coalesce(u.checks, 0) checks, coalesce(u.ups, 0) ups, coalesce(u.latency_sum, 0) latency_sum,
           coalesce(t.n, 0) att_count, coalesce(t.wsum, 0) att_wsum, coalesce(t.w, 0) att_w,
           coalesce(t.ewsum, 0) exp_wsum, coalesce(t.ew, 0) exp_w,
           coalesce(v.badges, '{}') badges, v.skills, r.score prev_score, r.fingerprint prev_fp
      from a
      left join ${schema.agentRunStats} st on st.agent_id = a.nid
      left join api.agent_profile p on p.agent_id = a.id
      left join u on u.agent_id = a.id
      left join t on t.agent_id = a.id
      left join v on v.agent_id = a.id
      left join api.reputation r on r.agent_id = a.id
  ),
  f as (
    -- The fingerprint: every input of the formula (and its version). Equal fingerprints mean equal results.
    select j.*, md5(concat_ws('|', '${REPUTATION_FORMULA_VERSION}', young, registered_at, total_claimed, completions,
      failures, capabilities::text, programming_langs::text, checks, ups, latency_sum, att_count, att_wsum, att_w,
      exp_wsum, exp_w, badges::text, skills::text)) fp
    from j
  )
  select * from f ${mode === "range" ? "where fp is distinct from prev_fp" : ""} order by nid`;
}

function toInputs(row: InputRow, now: bigint): ReputationInputs {
  return {
    now,
    registeredAt: BigInt(row.registered_at),
    totalClaimed: row.total_claimed,
    completions: row.completions,
    failures: row.failures,
    capabilities: row.capabilities,
    programmingLangs: row.programming_langs,
    checks: row.checks,
    ups: row.ups,
    latencySumMs: row.latency_sum,
    attestationCount: row.att_count,
    attestationWeightedSum: row.att_wsum,
    attestationWeightSum: row.att_w,
    expertiseWeightedSum: row.exp_wsum,
    expertiseWeightSum: row.exp_w,
    badges: row.badges,
    skillScores: row.skills ?? {},
  };
}

interface Computed {
  agentId: number;
  result: ReputationScores;
  stored: string;
  fingerprint: string;
  prevScore: number | null;
  prevFingerprint: string | null;
}

function compute(row: InputRow, now: bigint): Computed {
  const inputs = toInputs(row, now);
  const result = computeScores(inputs);
  const stored: StoredInputs = toStoredInputs(inputs);
  return {
    agentId: Number(row.id),
    result,
    stored: JSON.stringify(stored),
    fingerprint: row.fp,
    prevScore: row.prev_score,
    prevFingerprint: row.prev_fp,
  };
}

// Rows reach Postgres through COPY into a per-session temporary table (emptied at each commit), the cheapest bulk
// path; the upsert then touches only rows whose fingerprint changed.
const STAGE_SQL = `
  create temp table if not exists reputation_in (
    agent_id bigint, score float8, success_rate float8, uptime_percentage float8, avg_response_time_ms float8,
    attestation_count int, attestation_score float8, verification_points int, verification_badges text[],
    coding_score float8, research_score float8, content_score float8, components jsonb, fingerprint text
  ) on commit delete rows`;

const UPSERT_SQL = `
  insert into api.reputation as r (agent_id, score, success_rate, uptime_percentage, avg_response_time_ms,
      attestation_count, attestation_score, verification_points, verification_badges, coding_score,
      research_score, content_score, components, fingerprint, updated_at)
  select agent_id, score, success_rate, uptime_percentage, avg_response_time_ms, attestation_count,
         attestation_score, verification_points, verification_badges, coding_score, research_score,
         content_score, components, fingerprint, $1::timestamptz
    from reputation_in order by agent_id
  on conflict (agent_id) do update set
    score = excluded.score, success_rate = excluded.success_rate, uptime_percentage = excluded.uptime_percentage,
    avg_response_time_ms = excluded.avg_response_time_ms, attestation_count = excluded.attestation_count,
    attestation_score = excluded.attestation_score, verification_points = excluded.verification_points,
    verification_badges = excluded.verification_badges, coding_score = excluded.coding_score,
    research_score = excluded.research_score, content_score = excluded.content_score,
    components = excluded.components, fingerprint = excluded.fingerprint, updated_at = excluded.updated_at
  where r.fingerprint is distinct from excluded.fingerprint
  returning agent_id::text`;

/** A value in COPY text format. */
const copyText = (v: string) =>
  v.replace(/\\/g, "\\\\").replace(/\t/g, "\\t").replace(/\n/g, "\\n").replace(/\r/g, "\\r");

async function copyIn(client: pg.PoolClient, sql: string, lines: string[]): Promise<void> {
  await pipeline(Readable.from([lines.join("")]), client.query(copyFrom(sql)));
}

/**
 * Writes the agents whose fingerprint changed (an unchanged agent costs no write) and snapshots each changed score
 * (or first computation) that this statement wrote into the history, in one transaction.
 */
async function writeResults(
  deps: ReputationDeps,
  rows: Computed[],
  trigger: RecomputeTrigger,
  now: bigint,
): Promise<{ changed: number; snapshots: number }> {
  const changed = rows.filter((c) => c.fingerprint !== c.prevFingerprint);
  if (changed.length === 0) return { changed: 0, snapshots: 0 };
  const at = iso(now);
  return withTransaction(deps.pool, async (client) => {
    await client.query(STAGE_SQL);
    await copyIn(
      client,
      "copy reputation_in from stdin",
      changed.map(
        ({ agentId, result: r, stored, fingerprint }) =>
          `${[
            agentId,
            r.score,
            r.successRate,
            r.uptimePercentage,
            r.avgResponseTimeMs,
            r.attestationCount,
            r.attestationScore,
            r.verificationPoints,
            // Badge names are [a-z0-9-] only, so the array literal needs no quoting.
            `{${r.verificationBadges.join(",")}}`,
            r.codingScore,
            r.researchScore,
            r.contentScore,
            copyText(stored),
            fingerprint,
          ].join("\t")}\n`,
      ),
    );
    const upserted = await client.query<{ agent_id: string }>(UPSERT_SQL, [at]);
    // Only rows this statement wrote (a concurrent recompute of the same agent may have written them first).
    const written = new Set(upserted.rows.map((r) => Number(r.agent_id)));
    const snapshots = changed.filter(
      (c) => written.has(c.agentId) && (c.prevScore === null || c.prevScore !== c.result.score),
    );
    if (snapshots.length > 0) {
      await copyIn(
        client,
        "copy api.reputation_history (agent_id, score, components, trigger, computed_at) from stdin",
        snapshots.map((c) => `${c.agentId}\t${c.result.score}\t${copyText(c.stored)}\t${trigger}\t${at}\n`),
      );
      // Organization webhooks: queued in the same transaction (only agents of organizations with a subscriber).
      await queueOrgEvents(
        client,
        "reputation.updated",
        snapshots.map((c) => ({
          agentId: c.agentId,
          data: { agentId: c.agentId, score: c.result.score, previousScore: c.prevScore, trigger },
        })),
      );
    }
    return { changed: written.size, snapshots: snapshots.length };
  });
}

/** Recomputes the given agents (unknown ids are ignored) and returns the fresh results by agent id. */
export async function recomputeAgents(
  deps: ReputationDeps,
  ids: readonly number[],
  trigger: RecomputeTrigger,
  now: bigint,
): Promise<{ stats: RecomputeStats; results: Map<number, ReputationScores> }> {
  const started = performance.now();
  const results = new Map<number, ReputationScores>();
  const unique = [...new Set(ids)].filter((id) => Number.isSafeInteger(id) && id >= 0);
  if (unique.length === 0) return { stats: { agents: 0, changed: 0, snapshots: 0, ms: 0 }, results };
  const { rows } = await deps.pool.query<InputRow>(inputsSql(deps.views.names, "ids"), [
    windowStartDay(now),
    iso(now),
    unique.map(String),
  ]);
  const computed = rows.map((row) => compute(row, now));
  for (const c of computed) results.set(c.agentId, c.result);
  const { changed, snapshots } = await writeResults(deps, computed, trigger, now);
  return { stats: { agents: rows.length, changed, snapshots, ms: performance.now() - started }, results };
}

/**
 * Recomputes every agent: ranges of `batchSize` agents in id order, each source read once per range (one pass
 * over each table, parallel scans where Postgres chooses them); computed in chunks of `writeChunk` rows, each chunk
 * written while the next is computed, at most two writes in flight.
 */
export async function recomputeAll(
  deps: ReputationDeps,
  trigger: RecomputeTrigger,
  now: bigint,
  batchSize = 100_000,
  writeChunk = 10_000,
): Promise<RecomputeStats> {
  const started = performance.now();
  const total = { agents: 0, changed: 0, snapshots: 0, ms: 0 };
  const schema = deps.views.names;
  const sql = inputsSql(schema, "range");
  const inFlight = new Set<Promise<void>>();
  let failure: unknown;
  const write = async (chunk: Computed[]) => {
    if (failure) throw failure;
    const tracked: Promise<void> = writeResults(deps, chunk, trigger, now)
      .then((r) => {
        total.changed += r.changed;
        total.snapshots += r.snapshots;
      })
      .catch((err) => {
        failure ??= err;
      })
      .finally(() => inFlight.delete(tracked));
    inFlight.add(tracked);
    if (inFlight.size >= 2) await Promise.race(inFlight);
  };
  let after = "-1";
  try {
    while (true) {
      const range = await deps.pool.query<{ lo: string | null; hi: string | null; n: number }>(
        `select min(id)::text lo, max(id)::text hi, count(*)::int n
           from (select id from ${schema.agent} where id > $1::numeric order by id limit $2) x`,
        [after, batchSize],
      );
      const { lo, hi, n } = range.rows[0]!;
      if (!n || lo === null || hi === null) break;
      const { rows } = await deps.pool.query<InputRow>(sql, [windowStartDay(now), iso(now), lo, hi]);
      total.agents += n; // rows holds only the agents whose fingerprint changed
      // Computing the next chunk overlaps with the database writing the previous ones.
      for (let i = 0; i < rows.length; i += writeChunk) {
        await write(rows.slice(i, i + writeChunk).map((row) => compute(row, now)));
      }
      after = hi;
      if (n < batchSize) break;
    }
  } finally {
    await Promise.all(inFlight);
  }
  if (failure) throw failure;
  total.ms = performance.now() - started;
  return total;
}

/** One agent, at the current chain time; undefined when the agent does not exist. */
export async function recomputeAgent(
  deps: Deps,
  agentId: number,
  trigger: RecomputeTrigger,
): Promise<ReputationScores | undefined> {
  const now = await chainClock(deps).now();
  const { results } = await recomputeAgents(deps, [agentId], trigger, now);
  return results.get(agentId);
}

/** Recomputes after a request's write: a failure is logged (the poll and daily jobs catch up), never surfaced. */
export function recomputeSoon(deps: Deps, agentIds: number[], trigger: RecomputeTrigger): Promise<void> {
  return chainClock(deps)
    .now()
    .then((now) => recomputeAgents(deps, agentIds, trigger, now))
    .then(() => undefined)
    .catch((err) => deps.logger.warn({ err, agentIds, trigger }, "reputation recompute failed"));
}

/** Agents whose indexed run stats or stake changed at or after block time `ts` (seconds), with that time. */
export async function runInputsChangedSince(
  deps: Pick<Deps, "pool" | "views">,
  ts: string,
): Promise<{ agentId: string; updatedAt: bigint }[]> {
  const schema = deps.views.names;
  const { rows } = await deps.pool.query<{ agent_id: string; updated_at: string }>(
    `select agent_id::text, updated_at::text from ${schema.agentRunStats} where updated_at >= $1::numeric
     union
     select agent_id::text, updated_at::text from ${schema.stake} where updated_at >= $1::numeric`,
    [ts],
  );
  return rows.map((r) => ({ agentId: r.agent_id, updatedAt: BigInt(r.updated_at) }));
}

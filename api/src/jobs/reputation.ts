// Reputation jobs: the daily bulk recompute, the poll that reacts to indexed run/stake changes (run completion or
// failure) without coupling the runs feature to reputation, and the daily verification expiry.
import type { Deps } from "../context.ts";
import { chainClock } from "../lib/chain-time.ts";
import { readCursor, writeCursor } from "../stores/job-cursors.ts";
import { recomputeAgents, recomputeAll, runInputsChangedSince } from "../stores/reputation-recompute.ts";
import { pruneUptime } from "../stores/uptime.ts";
import { expireDue } from "../stores/verifications.ts";

export async function dailyReputation(deps: Deps) {
  const now = await chainClock(deps).now();
  const stats = await recomputeAll(deps, "daily", now);
  await pruneUptime(deps, new Date(Number(now) * 1000));
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
  const cursor = (await readCursor<PollCursor>(deps, CURSOR)) ?? { ts: "0", ids: [] };
  const rows = await runInputsChangedSince(deps, cursor.ts);
  if (rows.length === 0) return { agents: 0 };
  const seen = new Set(cursor.ids);
  const changed = new Set<number>();
  let maxTs = BigInt(cursor.ts);
  for (const r of rows) {
    if (r.updatedAt > maxTs) maxTs = r.updatedAt;
    if (r.updatedAt === BigInt(cursor.ts) && seen.has(r.agentId)) continue;
    changed.add(Number(r.agentId));
  }
  if (changed.size > 0) {
    const now = await chainClock(deps).now();
    const ids = [...changed];
    for (let i = 0; i < ids.length; i += 5_000) await recomputeAgents(deps, ids.slice(i, i + 5_000), "run", now);
  }
  const atMax = rows.filter((r) => r.updatedAt === maxTs).map((r) => r.agentId);
  const next: PollCursor = {
    ts: maxTs.toString(),
    ids: [...new Set(maxTs === BigInt(cursor.ts) ? [...cursor.ids, ...atMax] : atMax)],
  };
  await writeCursor(deps, CURSOR, next);
  return { agents: changed.size };
}

/** VERIFIED past expiresAt -> EXPIRED (and stale PENDING challenges too); affected reputations are recomputed. */
export async function expireVerifications(deps: Deps): Promise<{ expired: number }> {
  const now = await chainClock(deps).now();
  const { expired, agentIds } = await expireDue(deps, new Date(Number(now) * 1000));
  if (agentIds.length > 0) await recomputeAgents(deps, agentIds, "expiry", now);
  return { expired };
}

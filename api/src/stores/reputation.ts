// Stored reputation (api.reputation, api.reputation_history) read with the indexer's run stats. The reads behind
// agent pages and the leaderboard are named statements (db/prepared.ts); the history goes through drizzle.
import { and, desc, eq, lt } from "drizzle-orm";
import type { Deps } from "../context.ts";
import { prepared } from "../db/prepared.ts";
import { reputationHistory } from "../db/schema/index.ts";
import { visibleAgentIds } from "./org-scope.ts";

type ReputationDeps = Pick<Deps, "pool" | "views">;

export interface ReputationRow {
  score: number;
  uptimePercentage: number;
  avgResponseTimeMs: number;
  attestationCount: number;
  attestationScore: number;
  verificationBadges: string[];
  codingScore: number;
  researchScore: number;
  contentScore: number;
  components: unknown;
  updatedAt: Date;
  completions: number;
  totalClaimed: number;
}

/**
 * Whether the agent exists, and its stored reputation when it has one. Agent pages read it on every view: a named
 * statement (db/prepared.ts), planned once per connection.
 */
export async function readReputation(
  deps: ReputationDeps,
  agentId: number,
): Promise<{ exists: boolean; row?: ReputationRow }> {
  const s = deps.views.names;
  const { rows } = await deps.pool.query<ReputationRow & { hasRow: boolean }>(
    prepared(
      `select r.agent_id is not null "hasRow", r.score, r.uptime_percentage "uptimePercentage",
              r.avg_response_time_ms "avgResponseTimeMs", r.attestation_count "attestationCount",
              r.attestation_score "attestationScore", r.verification_badges "verificationBadges",
              r.coding_score "codingScore", r.research_score "researchScore", r.content_score "contentScore",
              r.components, r.updated_at "updatedAt",
              coalesce(st.completions, 0)::int completions, coalesce(st.total_claimed, 0)::int "totalClaimed"
         from ${s.agent} a
         left join api.reputation r on r.agent_id = a.id
         left join ${s.agentRunStats} st on st.agent_id = a.id
        where a.id = $1`,
      [agentId],
    ),
  );
  const row = rows[0];
  if (!row) return { exists: false };
  const { hasRow, ...stored } = row;
  return hasRow ? { exists: true, row: stored } : { exists: true };
}

export const LEADERBOARD_SORTS = {
  score: "score desc",
  completions: "completions desc, score desc",
  uptime: "uptime desc, score desc",
} as const;
export type LeaderboardSort = keyof typeof LEADERBOARD_SORTS;

export interface LeaderboardRow {
  id: number;
  name: string;
  score: number;
  completions: number;
  uptime: number;
}

/**
 * The top `limit` agents by `sort` (agents without a computed score count as 50), ties by id (the route caches the
 * whole answer: cachedAnswer). With `orgId`: the organization's agents and those of organizations sharing
 * reputation with it.
 */
export async function leaderboard(
  deps: ReputationDeps,
  sort: LeaderboardSort,
  limit: number,
  orgId?: string,
): Promise<LeaderboardRow[]> {
  const s = deps.views.names;
  const { rows } = await deps.pool.query<Omit<LeaderboardRow, "id"> & { id: string }>(
    prepared(
      `select a.id::text, coalesce(p.name, 'agent-' || a.id::text) name, coalesce(r.score, 50) score,
              coalesce(st.completions, 0)::int completions, coalesce(r.uptime_percentage, 0) uptime
         from ${s.agent} a
         left join api.reputation r on r.agent_id = a.id
         left join api.agent_profile p on p.agent_id = a.id
         left join ${s.agentRunStats} st on st.agent_id = a.id
        ${orgId === undefined ? "" : `where a.id in ${visibleAgentIds("$2")}`}
        order by ${LEADERBOARD_SORTS[sort]}, a.id
        limit $1`,
      orgId === undefined ? [limit] : [limit, orgId],
    ),
  );
  return rows.map((r) => ({ ...r, id: Number(r.id) }));
}

/** Score snapshots of one agent, newest first, from before snapshot `before` when given. */
export function reputationSnapshots(deps: Pick<Deps, "db">, agentId: number, limit: number, before?: number) {
  const h = reputationHistory;
  return deps.db
    .select({ id: h.id, score: h.score, trigger: h.trigger, computedAt: h.computedAt, components: h.components })
    .from(h)
    .where(and(eq(h.agentId, agentId), before === undefined ? undefined : lt(h.id, before)))
    .orderBy(desc(h.id))
    .limit(limit);
}

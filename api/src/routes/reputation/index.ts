// Reputation reads: one agent (with the breakdown of every component), its history, and the leaderboard.
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../context.ts";
import { computeReputation, fromStoredInputs, isStoredInputs } from "../../domain/reputation.ts";
import { recomputeAgent } from "../../domain/reputation-store.ts";
import { ApiError, errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json } from "../../lib/schemas.ts";

const idParam = z.object({
  id: z.coerce
    .number()
    .int()
    .positive()
    .max(Number.MAX_SAFE_INTEGER)
    .openapi({ param: { name: "id", in: "path" }, example: 1 }),
});

const component = z.record(z.string(), z.unknown());
const reputationSchema = z
  .object({
    agentId: z.number(),
    score: z.number(),
    completions: z.number(),
    totalClaimed: z.number(),
    uptimePercentage: z.number(),
    avgResponseTimeMs: z.number(),
    attestationCount: z.number(),
    attestationScore: z.number(),
    verificationBadges: z.array(z.string()),
    codingScore: z.number(),
    researchScore: z.number(),
    contentScore: z.number(),
    updatedAt: z.string(),
    breakdown: z
      .object({
        successRate: component,
        uptime: component,
        responseTime: component,
        attestations: component,
        verifications: component,
        capabilities: component,
      })
      .openapi({ description: "Each component: value (0-1), weight, points (its share of the score) and inputs" }),
  })
  .openapi("Reputation");

const SORTS = {
  score: "score desc",
  completions: "completions desc, score desc",
  uptime: "uptime desc, score desc",
} as const;

interface ReputationRow {
  score: number;
  uptime_percentage: number;
  avg_response_time_ms: number;
  attestation_count: number;
  attestation_score: number;
  verification_badges: string[];
  coding_score: number;
  research_score: number;
  content_score: number;
  components: unknown;
  updated_at: Date;
  completions: number;
  total_claimed: number;
}

async function readRow(deps: Deps, agentId: number): Promise<{ exists: boolean; row?: ReputationRow }> {
  const s = deps.env.INDEXER_SCHEMA;
  const { rows } = await deps.pool.query<ReputationRow & { has_row: boolean }>(
    `select r.agent_id is not null has_row, r.score, r.uptime_percentage, r.avg_response_time_ms, r.attestation_count,
            r.attestation_score, r.verification_badges, r.coding_score, r.research_score, r.content_score,
            r.components, r.updated_at,
            coalesce(st.completions, 0)::int completions, coalesce(st.total_claimed, 0)::int total_claimed
       from ${s}.agent a
       left join api.reputation r on r.agent_id = a.id
       left join ${s}.agent_run_stats st on st.agent_id = a.id
      where a.id = $1`,
    [agentId],
  );
  const row = rows[0];
  if (!row) return { exists: false };
  return row.has_row ? { exists: true, row } : { exists: true };
}

const detailRoute = createRoute({
  method: "get",
  path: "/api/reputation/{id}",
  tags: ["reputation"],
  summary: "An agent's reputation with the breakdown of each component",
  request: { params: idParam },
  responses: { 200: json(reputationSchema, "Reputation"), ...errorResponses(404) },
});

const historyRoute = createRoute({
  method: "get",
  path: "/api/reputation/{id}/history",
  tags: ["reputation"],
  summary: "Snapshots taken whenever a recalculation changed the score, newest first",
  request: {
    params: idParam,
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(20),
      before: z.coerce.number().int().positive().optional().openapi({ description: "snapshot id to page from" }),
    }),
  },
  responses: {
    200: json(
      z.object({
        agentId: z.number(),
        history: z.array(
          z.object({
            id: z.number(),
            score: z.number(),
            trigger: z.string(),
            computedAt: z.string(),
            breakdown: z.record(z.string(), component),
          }),
        ),
      }),
      "History",
    ),
    ...errorResponses(400, 404),
  },
});

const leaderboardRoute = createRoute({
  method: "get",
  path: "/api/reputation",
  tags: ["reputation"],
  summary: "Leaderboard",
  request: {
    query: z.object({
      limit: z.coerce.number().int().min(1).max(100).default(10),
      sortBy: z.string().optional().openapi({ description: "score (default), completions or uptime" }),
    }),
  },
  responses: {
    200: json(
      z.object({
        leaderboard: z.array(
          z.object({
            rank: z.number(),
            agentId: z.number(),
            name: z.string(),
            score: z.number(),
            completions: z.number(),
            uptimePercentage: z.number(),
          }),
        ),
        sortBy: z.string(),
      }),
      "Leaderboard",
    ),
    ...errorResponses(400),
  },
});

export const reputationRoutes = router()
  .openapi(leaderboardRoute, async (c) => {
    const deps = c.get("deps");
    const { limit, sortBy = "score" } = c.req.valid("query");
    if (!(sortBy in SORTS)) {
      throw new ApiError(400, "INVALID_SORT_BY", `sortBy must be one of ${Object.keys(SORTS).join(", ")}`);
    }
    const s = deps.env.INDEXER_SCHEMA;
    const { rows } = await deps.pool.query<{
      id: string;
      name: string;
      score: number;
      completions: number;
      uptime: number;
    }>(
      `select a.id::text, coalesce(p.name, 'agent-' || a.id::text) name, coalesce(r.score, 50) score,
              coalesce(st.completions, 0)::int completions, coalesce(r.uptime_percentage, 0) uptime
         from ${s}.agent a
         left join api.reputation r on r.agent_id = a.id
         left join api.agent_profile p on p.agent_id = a.id
         left join ${s}.agent_run_stats st on st.agent_id = a.id
        order by ${SORTS[sortBy as keyof typeof SORTS]}, a.id
        limit $1`,
      [limit],
    );
    return c.json(
      {
        sortBy,
        leaderboard: rows.map((r, i) => ({
          rank: i + 1,
          agentId: Number(r.id),
          name: r.name,
          score: r.score,
          completions: r.completions,
          uptimePercentage: r.uptime,
        })),
      },
      200,
    );
  })
  .openapi(detailRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    let read = await readRow(deps, id);
    if (!read.exists) throw errors.agentNotFound(id);
    if (!read.row || !isStoredInputs(read.row.components)) {
      // Never computed yet (no trigger so far): compute and store it now.
      await recomputeAgent(deps, id, "read");
      read = await readRow(deps, id);
    }
    const r = read.row!;
    // The breakdown is rebuilt from the inputs stored with the score (same function, same result).
    const { capabilities, successRate, uptime, responseTime, attestations, verifications } = computeReputation(
      fromStoredInputs(r.components as never),
    ).components;
    return c.json(
      {
        agentId: id,
        score: r.score,
        completions: r.completions,
        totalClaimed: r.total_claimed,
        uptimePercentage: r.uptime_percentage,
        avgResponseTimeMs: r.avg_response_time_ms,
        attestationCount: r.attestation_count,
        attestationScore: r.attestation_score,
        verificationBadges: r.verification_badges,
        codingScore: r.coding_score,
        researchScore: r.research_score,
        contentScore: r.content_score,
        updatedAt: r.updated_at.toISOString(),
        breakdown: { successRate, uptime, responseTime, attestations, verifications, capabilities },
      },
      200,
    );
  })
  .openapi(historyRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { limit, before } = c.req.valid("query");
    const exists = await readRow(deps, id);
    if (!exists.exists) throw errors.agentNotFound(id);
    const { rows } = await deps.pool.query<{
      id: string;
      score: number;
      trigger: string;
      computed_at: Date;
      components: unknown;
    }>(
      `select h.id::text, h.score, h.trigger, h.computed_at, h.components from api.reputation_history h
        where h.agent_id = $1 and ($2::bigint is null or h.id < $2::bigint) order by h.id desc limit $3`,
      [id, before ?? null, limit],
    );
    return c.json(
      {
        agentId: id,
        history: rows.map((r) => ({
          id: Number(r.id),
          score: r.score,
          trigger: r.trigger,
          computedAt: r.computed_at.toISOString(),
          breakdown: isStoredInputs(r.components)
            ? (computeReputation(fromStoredInputs(r.components)).components as unknown as Record<
                string,
                Record<string, unknown>
              >)
            : {},
        })),
      },
      200,
    );
  });

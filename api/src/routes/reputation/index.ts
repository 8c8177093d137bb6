// Reputation reads: one agent (with the breakdown of every component), its history, and the leaderboard.

import { createRoute, z } from "@hono/zod-openapi";
import { apiError } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, pageLimit, pathId } from "../../lib/schemas.ts";
import { cachedAnswer } from "../../stores/read-cache.ts";
import { LEADERBOARD_SORTS, type LeaderboardSort, leaderboard } from "../../stores/reputation.ts";
import { getReputation } from "../../use-cases/reputation/get-reputation.ts";
import { reputationHistory } from "../../use-cases/reputation/history.ts";
import { reputationInputs } from "../../use-cases/reputation/publish-inputs.ts";
import { reputationInputsSchema } from "./inputs-schema.ts";

const idParam = z.object({ id: pathId("id") });

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

const detailRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["reputation"],
  summary: "An agent's reputation with the breakdown of each component",
  middleware: [cachedAnswer()] as const,
  request: { params: idParam },
  responses: { 200: json(reputationSchema, "Reputation"), ...errorResponses(404) },
});

const historyRoute = createRoute({
  method: "get",
  path: "/{id}/history",
  tags: ["reputation"],
  summary: "Snapshots taken whenever a recalculation changed the score, newest first",
  request: {
    params: idParam,
    query: z.object({
      limit: pageLimit(20),
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

const inputsRoute = createRoute({
  method: "get",
  path: "/{id}/inputs",
  tags: ["reputation"],
  summary: "The inputs of the stored score, published content-addressed so anyone can recompute it",
  description:
    "The document is also served at /ipfs/{cid} (CIDv1, raw codec, sha2-256 of its exact bytes). Chain facts are " +
    "rebuilt from RunEscrow and AgentIdentity events at or before computedAt; the formula is domain/reputation.ts " +
    "(scripts/recompute-reputation.ts does both).",
  request: { params: idParam },
  responses: {
    200: json(reputationInputsSchema, "Published inputs"),
    ...errorResponses(404),
  },
});

const leaderboardRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["reputation"],
  summary: "Leaderboard (with an organization key: the organization's agents)",
  middleware: [cachedAnswer()] as const,
  request: {
    query: z.object({
      limit: pageLimit(10),
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
    const { limit, sortBy = "score" } = c.req.valid("query");
    if (!(sortBy in LEADERBOARD_SORTS)) {
      throw apiError("INVALID_SORT_BY", `sortBy must be one of ${Object.keys(LEADERBOARD_SORTS).join(", ")}`);
    }
    const rows = await leaderboard(c.get("deps"), sortBy as LeaderboardSort, limit, c.get("org")?.id);
    return c.json(
      {
        sortBy,
        leaderboard: rows.map((r, i) => ({
          rank: i + 1,
          agentId: r.id,
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
    const { id } = c.req.valid("param");
    const { breakdown, ...r } = await getReputation(c.get("deps"), { agentId: id });
    const { capabilities, successRate, uptime, responseTime, attestations, verifications } = breakdown;
    return c.json(
      {
        agentId: id,
        score: r.score,
        completions: r.completions,
        totalClaimed: r.totalClaimed,
        uptimePercentage: r.uptimePercentage,
        avgResponseTimeMs: r.avgResponseTimeMs,
        attestationCount: r.attestationCount,
        attestationScore: r.attestationScore,
        verificationBadges: r.verificationBadges,
        codingScore: r.codingScore,
        researchScore: r.researchScore,
        contentScore: r.contentScore,
        updatedAt: r.updatedAt.toISOString(),
        breakdown: { successRate, uptime, responseTime, attestations, verifications, capabilities },
      },
      200,
    );
  })
  .openapi(historyRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { limit, before } = c.req.valid("query");
    const history = await reputationHistory(c.get("deps"), { agentId: id, limit, before });
    return c.json({ agentId: id, history }, 200);
  })
  .openapi(inputsRoute, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await reputationInputs(c.get("deps"), { agentId: id }), 200);
  });

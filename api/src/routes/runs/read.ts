import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { address, errorResponses, json, pageQuery, pagination, paginationOf } from "../../lib/schemas.ts";
import { cachedAnswer } from "../../stores/read-cache.ts";
import { listRuns, runEvents } from "../../stores/runs.ts";
import { claimEligibility } from "../../use-cases/runs/claim-eligibility.ts";
import { getRun } from "../../use-cases/runs/get-run.ts";
import { eligibility, runDetail, runEvent, runIdParam, runListItem, runState } from "./schemas.ts";
import { toRunDetail, toRunEvents, toRunListItem } from "./views.ts";

const listRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["runs"],
  summary: "Runs, newest first (with an organization key: the organization's runs)",
  middleware: [cachedAnswer()] as const,
  request: {
    query: z.object({
      ...pageQuery(),
      state: runState.optional(),
      minReward: z
        .string()
        .regex(/^\d{1,39}$/, "USDC base units as an unsigned integer string (20 USDC = 20000000)")
        .optional()
        .openapi({ description: "minimum reward in USDC base units (6 decimals), like every amount" }),
      agentId: z.coerce
        .number()
        .int()
        .nonnegative()
        .max(Number.MAX_SAFE_INTEGER)
        .optional()
        .openapi({ description: "only runs this agent claimed (its console's list)" }),
      poster: address.optional().openapi({ description: "only runs this address posted" }),
    }),
  },
  responses: { 200: json(z.object({ runs: z.array(runListItem), pagination }), "Runs"), ...errorResponses(400) },
});

const detailRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["runs"],
  middleware: [cachedAnswer()] as const,
  request: { params: runIdParam },
  responses: { 200: json(runDetail, "Run"), ...errorResponses(404) },
});

const eligibilityRoute = createRoute({
  method: "get",
  path: "/{id}/claim-eligibility",
  tags: ["runs"],
  summary: "Whether an agent may claim the run now, with every reason it may not",
  request: {
    params: runIdParam,
    query: z.object({ agentId: z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER) }),
  },
  responses: { 200: json(eligibility, "Eligibility"), ...errorResponses(400, 404) },
});

const eventsRoute = createRoute({
  method: "get",
  path: "/{id}/events",
  tags: ["runs"],
  summary: "The run's history from indexed escrow events (plus its creation as a draft)",
  request: { params: runIdParam },
  responses: {
    200: json(z.object({ bountyId: z.number(), events: z.array(runEvent) }), "History"),
    ...errorResponses(404),
  },
});

export const readRoutes = router()
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const q = c.req.valid("query");
    const { runs, total } = await listRuns(deps, {
      page: q.page,
      limit: q.limit,
      state: q.state,
      minReward: q.minReward === undefined ? undefined : BigInt(q.minReward),
      agentId: q.agentId,
      poster: q.poster?.toLowerCase(),
      orgId: c.get("org")?.id,
    });
    return c.json(
      {
        runs: runs.map(toRunListItem),
        pagination: paginationOf(q.page, q.limit, total),
      },
      200,
    );
  })
  .openapi(detailRoute, async (c) => {
    const deps = c.get("deps");
    return c.json(await toRunDetail(deps, await getRun(deps, c.req.valid("param").id)), 200);
  })
  .openapi(eligibilityRoute, async (c) => {
    const { run, agent, check, availableCoverage } = await claimEligibility(c.get("deps"), {
      runId: c.req.valid("param").id,
      agentId: c.req.valid("query").agentId,
    });
    return c.json(
      {
        eligible: check.problems.length === 0,
        reasons: check.problems.map((p) => p.code),
        messages: check.problems.map((p) => p.message),
        agent: {
          id: agent.id,
          status: check.status,
          stakedAmount: check.stakedAmount.toString(),
          hasMinStake: check.stakedAmount >= check.minStake,
          availableCoverage: availableCoverage.toString(),
        },
        run: {
          id: run.id,
          state: run.state,
          reward: run.reward.toString(),
          requiredCoverage: run.requiredCoverage.toString(),
        },
      },
      200,
    );
  })
  .openapi(eventsRoute, async (c) => {
    const deps = c.get("deps");
    const run = await getRun(deps, c.req.valid("param").id);
    return c.json({ bountyId: run.id, events: toRunEvents(run, await runEvents(deps, run)) }, 200);
  });

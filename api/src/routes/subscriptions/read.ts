// Reading subscriptions and previewing what instructions would create.
import { createRoute } from "@hono/zod-openapi";
import type { Address } from "viem";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json } from "../../lib/schemas.ts";
import { listSubscriptions } from "../../stores/subscriptions.ts";
import { getSubscription, listSubscriptionRuns } from "../../use-cases/subscriptions/get-subscription.ts";
import {
  previewSubscription,
  SUBSCRIPTION_PREVIEW_LIMITS,
} from "../../use-cases/subscriptions/preview-subscription.ts";
import {
  idParam,
  listQuery,
  listResult,
  previewQuery,
  previewResult,
  runsQuery,
  runsResult,
  subscription as subscriptionSchema,
} from "./schemas.ts";
import { toSubscription, toSubscriptionRun } from "./views.ts";

const tags = ["subscriptions"];

const previewRoute = createRoute({
  method: "get",
  path: "/parse-cadence",
  tags,
  summary: "Preview the cadence, schedule and prepaid cost of instructions (nothing is created)",
  request: { query: previewQuery },
  responses: { 200: json(previewResult, "Detected cadence and costs"), ...errorResponses(400) },
});

const listRoute = createRoute({
  method: "get",
  path: "/",
  tags,
  summary: "List subscriptions, newest first (with an organization key: those posted by its agents' wallets or owners)",
  request: { query: listQuery },
  responses: { 200: json(listResult, "Subscriptions"), ...errorResponses(400) },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags,
  summary: "A subscription (its runs: GET /api/subscriptions/{id}/runs)",
  request: { params: idParam },
  responses: { 200: json(subscriptionSchema, "Subscription"), ...errorResponses(400, 404) },
});

const runsRoute = createRoute({
  method: "get",
  path: "/{id}/runs",
  tags,
  summary: "The runs a subscription created, oldest first (bountyId: use the runs API)",
  request: { params: idParam, query: runsQuery },
  responses: { 200: json(runsResult, "Runs"), ...errorResponses(400, 404) },
});

export const subscriptionReadRoutes = router()
  .openapi(previewRoute, async (c) => {
    const q = c.req.valid("query");
    const p = await previewSubscription(c.get("deps"), {
      instructions: q.instructions,
      rewardPerRun: BigInt(q.rewardPerRun),
      posterAddress: q.posterAddress as Address | undefined,
    });
    return c.json(
      {
        detected: p.detected,
        costs: p.costs,
        vault: p.vault,
        terms: { ...p.terms, subscriber: undefined, rewardPerRun: p.terms.rewardPerRun.toString() },
        ...(p.nonce === undefined ? {} : { nonce: p.nonce.toString() }),
        limits: SUBSCRIPTION_PREVIEW_LIMITS,
      },
      200,
    );
  })
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const q = c.req.valid("query");
    const org = c.get("org");
    const { rows, total } = await listSubscriptions(deps, {
      ...q,
      org: org && { id: org.id, agentView: deps.views.names.agent },
    });
    return c.json({ subscriptions: rows.map(toSubscription), total, page: q.page, limit: q.limit }, 200);
  })
  .openapi(getRoute, async (c) => {
    return c.json(toSubscription(await getSubscription(c.get("deps"), c.req.valid("param").id)), 200);
  })
  .openapi(runsRoute, async (c) => {
    const { id } = c.req.valid("param");
    const q = c.req.valid("query");
    const { rows, total } = await listSubscriptionRuns(c.get("deps"), { id, ...q });
    return c.json({ subscriptionId: id, runs: rows.map(toSubscriptionRun), total, page: q.page, limit: q.limit }, 200);
  });

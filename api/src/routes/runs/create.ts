// Creating (DRAFT, off chain) and funding (the poster's terms-bound EIP-3009 authorization relayed, or a direct
// createRun transaction the poster sent) a run.
import { createRoute } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { createRun } from "../../use-cases/runs/create-run.ts";
import { fundRun } from "../../use-cases/runs/fund-run.ts";
import { createBody, fundBody } from "./bodies.ts";
import { runActionResult, runIdParam } from "./schemas.ts";
import { toRunDetail } from "./views.ts";

const createRunRoute = createRoute({
  method: "post",
  path: "/",
  tags: ["runs"],
  summary: "Create a DRAFT run; the request JSON is stored under its CID (signed by the poster: create-run:run:new)",
  request: { body: jsonBody(createBody) },
  responses: { 201: json(runActionResult, "Draft created"), ...errorResponses(400, 401, 403) },
});

const fundRoute = createRoute({
  method: "post",
  path: "/{id}/fund",
  tags: ["runs"],
  summary:
    "Fund a DRAFT: the relayer submits createRunWithAuthorization with the poster's EIP-3009 authorization of reward + fee bound to the run's terms, or a direct createRun txHash is verified -> OPEN",
  request: { params: runIdParam, body: jsonBody(fundBody) },
  responses: { 200: json(runActionResult, "Funded"), ...errorResponses(400, 401, 403, 404, 409, 504) },
});

export const createRoutes = router()
  .openapi(createRunRoute, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    const { run, requestUri } = await createRun(deps, {
      ...body,
      posterAddress: body.posterAddress as `0x${string}`,
      reward: BigInt(body.reward),
      requiredCoverage: body.requiredCoverage === undefined ? undefined : BigInt(body.requiredCoverage),
    });
    return c.json(
      {
        success: true,
        run: await toRunDetail(deps, run),
        txHash: null,
        message: `Draft stored at ${requestUri}. Fund it with POST /api/runs/${run.id}/fund (an EIP-3009 authorization of ${run.reward + run.fee} base units, reward + platform fee, bound to this run's terms).`,
      },
      201,
    );
  })
  .openapi(fundRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { run, onchainRunId, txHash } = await fundRun(deps, { runId: id, ...c.req.valid("json") });
    return c.json(
      {
        success: true,
        run: await toRunDetail(deps, run),
        txHash,
        message: `Run ${id} is OPEN: ${run.reward + run.fee} USDC base units are held by the escrow (on-chain run ${onchainRunId}).`,
      },
      200,
    );
  });

// The poster sets a funded run's cover (agreed damages) in the InsurancePool; rules in use-cases/runs/set-cover.ts.
import { createRoute } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { setRunCover } from "../../use-cases/runs/set-cover.ts";
import { coverBody } from "./bodies.ts";
import { runActionResult, runIdParam } from "./schemas.ts";
import { toRunDetail } from "./views.ts";

const coverRoute = createRoute({
  method: "post",
  path: "/{id}/cover",
  tags: ["runs"],
  summary:
    "The poster sets the run's cover (agreed damages insurance pays after a timeout or a lost dispute) in the InsurancePool: funded, OPEN and never claimed, once; the draft's requiredCoverage when it declares one (signed action set-run-cover:run:<id> plus the EIP-712 RunCover)",
  request: { params: runIdParam, body: jsonBody(coverBody) },
  responses: { 200: json(runActionResult, "Cover set"), ...errorResponses(400, 401, 403, 404, 409, 504) },
});

export const coverRoutes = router().openapi(coverRoute, async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  const { cover, ...signed } = c.req.valid("json");
  const amount = BigInt(cover.amount);
  const { run, txHash } = await setRunCover(deps, {
    runId: id,
    ...signed,
    cover: { amount, deadline: BigInt(cover.deadline), signature: cover.signature },
  });
  return c.json(
    {
      success: true,
      run: await toRunDetail(deps, run),
      txHash,
      message: `Run ${id} requires ${amount} USDC base units of insurance coverage to claim; if the agent times out or loses a dispute you may claim that much (less the stake slashed to you) once, from its coverage.`,
    },
    200,
  );
});

// Every step after funding: one signed request carrying the party's on-chain consent -> one RunEscrow `...BySig`
// transaction (relayed; the escrow verifies the consent) -> the indexed run. The rules are the step table
// (use-cases/runs/steps.ts); these routes parse, run the step and answer.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { requireAdmin } from "../../auth/admin.ts";
import { ADMIN_TOKEN } from "../../auth/security-schemes.ts";
import type { AppEnv } from "../../context.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import type { RunStepReturnType } from "../../use-cases/runs/run-step.ts";
import { runStepByName } from "../../use-cases/runs/steps.ts";
import { agentStatus } from "../agents/schemas.ts";
import { claimBody, consentedOnly, feedbackBody, reasonBody, resolveBody, signedOnly, submitBody } from "./bodies.ts";
import { runActionResult, runDetail, runIdParam } from "./schemas.ts";
import { toRunDetail } from "./views.ts";

const signedRoute = <T extends z.ZodTypeAny>(path: string, summary: string, body: T) =>
  createRoute({
    method: "post",
    path: `/{id}/${path}`,
    tags: ["runs"],
    summary,
    request: { params: runIdParam, body: jsonBody(body) },
    responses: { 200: json(runActionResult, "Updated run"), ...errorResponses(400, 401, 403, 404, 409, 504) },
  });

const claimRoute = createRoute({
  method: "post",
  path: "/{id}/claim",
  tags: ["runs"],
  summary: "Claim an OPEN run for an agent (signed by the agent's owner or wallet: claim-run:run:<id>)",
  request: { params: runIdParam, body: jsonBody(claimBody) },
  responses: {
    200: json(
      z.object({
        success: z.boolean(),
        run: runDetail,
        agent: z.object({ id: z.number(), status: agentStatus, stakedAmount: z.string() }),
        txHash: z.string(),
        message: z.string(),
      }),
      "Claimed",
    ),
    ...errorResponses(400, 401, 403, 404, 409, 504),
  },
});

const startRoute = signedRoute("start", "Agent starts work: CLAIMED -> IN_PROGRESS (start-run)", consentedOnly);
const submitRoute = signedRoute(
  "submit",
  "Agent submits (or resubmits) the deliverable: -> SUBMITTED (submit-run)",
  submitBody,
);
const approveRoute = signedRoute(
  "approve",
  "Poster approves: the reward is credited to the agent and paid to its owner by the next payout (seconds later), the fee accrued for the treasury -> APPROVED (approve-run)",
  consentedOnly,
);
const revisionRoute = signedRoute(
  "request-revision",
  "Poster asks for changes: SUBMITTED -> REVISION_REQUESTED (request-revision)",
  feedbackBody,
);
const rejectRoute = signedRoute(
  "reject",
  "Poster rejects once all revisions are used: reward + fee refunded -> REJECTED (reject-run)",
  reasonBody,
);
const disputeRoute = signedRoute(
  "dispute",
  "Poster or agent disputes a submission -> DISPUTED (dispute-run)",
  reasonBody,
);
const cancelRoute = signedRoute(
  "cancel",
  "Poster cancels an OPEN run: reward + fee refunded -> CANCELLED (cancel-run)",
  consentedOnly,
);
const timeoutRoute = signedRoute(
  "timeout-slash",
  "Poster slashes an agent with no submission within the escrow's claim timeout (RunEscrow.claimTimeout, 7 days at deployment, a governance parameter) after its claim, or no resubmission that long after a revision request: refund + stake slash -> TIMED_OUT (timeout-slash)",
  signedOnly,
);
const resolveRoute = createRoute({
  method: "post",
  path: "/{id}/resolve",
  tags: ["runs"],
  summary:
    "Admin resolves a dispute: for the agent -> APPROVED (reward paid to the agent's owner by the next payout); for the poster -> the agent's stake is slashed to the poster and the run is OPEN again",
  security: ADMIN_TOKEN,
  middleware: [requireAdmin] as const,
  request: { params: runIdParam, body: jsonBody(resolveBody) },
  responses: { 200: json(runActionResult, "Resolved"), ...errorResponses(400, 401, 404, 409, 504) },
});

/** The step's answer: the indexed run after it, its transaction and what happened. */
async function answer(c: Context<AppEnv>, r: RunStepReturnType<unknown>) {
  return { success: true, run: await toRunDetail(c.get("deps"), r.run), txHash: r.txHash, message: r.message };
}

export const actionRoutes = router()
  .openapi(claimRoute, async (c) => {
    const { message, signature, ...input } = c.req.valid("json");
    const r = await runStepByName(c.get("deps"), "claim", {
      runId: c.req.valid("param").id,
      signed: { message, signature },
      input: { ...input, walletAddress: input.walletAddress as `0x${string}` },
    });
    return c.json({ ...(await answer(c, r)), txHash: r.txHash, agent: r.extra }, 200);
  })
  .openapi(startRoute, async (c) => {
    const { message, signature, ...input } = c.req.valid("json");
    const runId = c.req.valid("param").id;
    const r = await runStepByName(c.get("deps"), "start", { runId, signed: { message, signature }, input });
    return c.json(await answer(c, r), 200);
  })
  .openapi(submitRoute, async (c) => {
    const { message, signature, deliverableHash, ...input } = c.req.valid("json");
    const r = await runStepByName(c.get("deps"), "submit", {
      runId: c.req.valid("param").id,
      signed: { message, signature },
      input: { ...input, deliverableHash: deliverableHash as `0x${string}` | undefined },
    });
    return c.json(await answer(c, r), 200);
  })
  .openapi(approveRoute, async (c) => {
    const { message, signature, ...input } = c.req.valid("json");
    const runId = c.req.valid("param").id;
    const r = await runStepByName(c.get("deps"), "approve", { runId, signed: { message, signature }, input });
    return c.json(await answer(c, r), 200);
  })
  .openapi(revisionRoute, async (c) => {
    const { message, signature, ...input } = c.req.valid("json");
    const runId = c.req.valid("param").id;
    const r = await runStepByName(c.get("deps"), "request-revision", { runId, signed: { message, signature }, input });
    return c.json(await answer(c, r), 200);
  })
  .openapi(rejectRoute, async (c) => {
    const { message, signature, ...input } = c.req.valid("json");
    const runId = c.req.valid("param").id;
    const r = await runStepByName(c.get("deps"), "reject", { runId, signed: { message, signature }, input });
    return c.json(await answer(c, r), 200);
  })
  .openapi(disputeRoute, async (c) => {
    const { message, signature, ...input } = c.req.valid("json");
    const runId = c.req.valid("param").id;
    const r = await runStepByName(c.get("deps"), "dispute", { runId, signed: { message, signature }, input });
    return c.json(await answer(c, r), 200);
  })
  .openapi(cancelRoute, async (c) => {
    const { message, signature, ...input } = c.req.valid("json");
    const runId = c.req.valid("param").id;
    const r = await runStepByName(c.get("deps"), "cancel", { runId, signed: { message, signature }, input });
    return c.json(await answer(c, r), 200);
  })
  .openapi(timeoutRoute, async (c) => {
    const signed = c.req.valid("json");
    const runId = c.req.valid("param").id;
    const r = await runStepByName(c.get("deps"), "timeout-slash", { runId, signed, input: {} });
    return c.json(await answer(c, r), 200);
  })
  .openapi(resolveRoute, async (c) => {
    const input = c.req.valid("json");
    const r = await runStepByName(c.get("deps"), "resolve", { runId: c.req.valid("param").id, input });
    return c.json(await answer(c, r), 200);
  });

// Every step after funding: one signed request carrying the party's on-chain consent -> one RunEscrow
// `...BySig` transaction (relayed; the escrow verifies the consent) -> the indexed run.

import type { RelayResult } from "@agenthub/relayer/relayer";
import { deliverableHashOf, type RunConsentAction } from "@agenthub/sdk/protocol";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { type Address, type Hex, isAddressEqual } from "viem";
import { requireAdmin } from "../../auth/admin.ts";
import type { AppEnv, Deps } from "../../context.ts";
import { activeStake } from "../../domain/agent-status.ts";
import { ApiError, errors } from "../../errors.ts";
import { isAgentWalletOrOwner } from "../../lib/deposit-tx.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import { findAgent, statusOf } from "../../stores/agents.ts";
import { emitOrgEvent } from "../../stores/webhook-outbox.ts";
import { emitBountyCompleted } from "../../webhooks/bounty-events.ts";
import { agentStatus } from "../agents/schemas.ts";
import { requireConsent } from "./consent.ts";
import { checkClaim } from "./eligibility.ts";
import { chainNow, recordAction, relayEscrow, waitForRunTx, withRunLock } from "./escrow.ts";
import { getRun, isoFromSeconds, type RunRecord } from "./repository.ts";
import {
  type ConsentInput,
  claimBody,
  consentedOnly,
  feedbackBody,
  reasonBody,
  resolveBody,
  runActionResult,
  runDetail,
  runIdParam,
  signedOnly,
  submitBody,
} from "./schemas.ts";
import type { RunState } from "./state.ts";
import { toRunDetail } from "./views.ts";

type Actor = "poster" | "agent" | "party";

const same = (a: string | null, b: string) => a !== null && isAddressEqual(a as Address, b as Address);

/** Checks `signer` may act as `actor` on `run`; returns which side it is. */
function assertActor(run: RunRecord, signer: Address, actor: Actor): "poster" | "agent" {
  const isPoster = same(run.poster, signer);
  const isAgent =
    run.agentId !== null && (same(run.agentOwner, signer) || (run.agentWalletBound && same(run.agentWallet, signer)));
  if (actor === "poster" && !isPoster) {
    throw errors.forbidden("NOT_RUN_POSTER", `only the run's poster ${run.poster} may do this`);
  }
  if (actor === "agent" && !isAgent) {
    throw errors.forbidden(
      "NOT_RUN_AGENT",
      run.agentId === null
        ? `run ${run.id} has no claiming agent`
        : `only agent ${run.agentId}'s owner or wallet may do this`,
    );
  }
  if (actor === "party" && !isPoster && !isAgent) {
    throw errors.forbidden("NOT_RUN_PARTY", "only the poster or the claiming agent may do this");
  }
  return isPoster ? "poster" : "agent";
}

function assertState(run: RunRecord, allowed: readonly RunState[], what: string) {
  if (!allowed.includes(run.state)) {
    throw errors.conflict(
      "INVALID_RUN_STATE",
      `cannot ${what} run ${run.id} in state ${run.state} (needs ${allowed.join(" or ")})`,
    );
  }
}

interface StepSpec {
  /** Signed action name: the message's resource is urn:agenthub:<action>:run:<id>. */
  action: string;
  actor: Actor;
  from: readonly RunState[];
  verb: string;
  /** Extra checks and the escrow call, under the run's lock (the run is freshly read); `signer` signed the message. */
  send: (deps: Deps, run: RunRecord, signer: Address) => Promise<RelayResult>;
  detail?: (run: RunRecord, side: "poster" | "agent") => Record<string, unknown>;
  done: (run: RunRecord) => string;
  /** After the step is indexed (e.g. an organization webhook event). */
  after?: (deps: Deps, run: RunRecord, txHash: string) => Promise<void>;
}

async function runStep(c: Context<AppEnv>, id: number, signed: { message: string; signature: string }, spec: StepSpec) {
  const deps = c.get("deps");
  await getRun(deps, id); // 404 before anything is consumed
  const signer = await verifySignedAction(deps, signed, { action: spec.action, kind: "run", id });
  const relayed = await withRunLock(deps, id, async () => {
    const run = await getRun(deps, id);
    if (spec.actor !== "poster" && run.agentId === null) assertState(run, spec.from, spec.verb);
    const side = assertActor(run, signer, spec.actor);
    assertState(run, spec.from, spec.verb);
    const result = await spec.send(deps, run, signer);
    await recordAction(deps, {
      runId: id,
      action: spec.action,
      signer,
      agentId: run.agentId,
      txHash: result.txHash,
      detail: { by: side, ...spec.detail?.(run, side) },
    });
    return result;
  });
  await waitForRunTx(deps, relayed);
  const run = await getRun(deps, id);
  await spec.after?.(deps, run, relayed.txHash);
  return { success: true, run: await toRunDetail(deps, run), txHash: relayed.txHash, message: spec.done(run) };
}

const onchain = (run: RunRecord) => run.onchainRunId!;

/**
 * Relays `<action>BySig` with the consent the request carries (checked first: signer, deadline, nonce, signature).
 * Claim takes the agent, submit the deliverable hash.
 */
async function relayConsented(
  deps: Deps,
  run: RunRecord,
  action: Exclude<RunConsentAction, "claim" | "submit">,
  consent: ConsentInput,
  signer: Address,
): Promise<RelayResult> {
  const c = await requireConsent(deps, run, action, consent, signer);
  return relayEscrow(deps, `${action}BySig`, [onchain(run), c]);
}

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
  "Poster approves: reward to the agent's owner, fee accrued for the treasury -> APPROVED (approve-run)",
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
    "Admin resolves a dispute: for the agent -> APPROVED and paid; for the poster -> the agent's stake is slashed to the poster and the run is OPEN again",
  security: [{ adminToken: [] }],
  middleware: [requireAdmin] as const,
  request: { params: runIdParam, body: jsonBody(resolveBody) },
  responses: { 200: json(runActionResult, "Resolved"), ...errorResponses(400, 401, 404, 409, 504) },
});

export const actionRoutes = router()
  .openapi(claimRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    await getRun(deps, id);
    const agent = await findAgent(deps, body.agentId);
    if (!agent) throw errors.agentNotFound(body.agentId);
    const signer = await verifySignedAction(deps, body, { action: "claim-run", kind: "run", id });
    if (!isAddressEqual(signer, body.walletAddress as Address)) {
      throw errors.forbidden("WALLET_MISMATCH", "the message must be signed by walletAddress");
    }
    if (!isAgentWalletOrOwner(agent, signer)) {
      throw errors.forbidden("WALLET_MISMATCH", `walletAddress is neither agent ${agent.id}'s owner nor its wallet`);
    }
    const relayed = await withRunLock(deps, id, async () => {
      const run = await getRun(deps, id);
      const [now, fresh, { minStake }] = await Promise.all([
        chainNow(deps),
        findAgent(deps, agent.id),
        deps.params.fresh(),
      ]);
      const problems = checkClaim(run, fresh!, now, minStake).problems;
      const runProblem = problems.find((p) => p.status === 400);
      if (runProblem) throw new ApiError(400, "RUN_NOT_AVAILABLE", runProblem.message);
      const agentProblem = problems[0];
      if (agentProblem) throw new ApiError(403, agentProblem.code, agentProblem.message);
      const unavailable = { status: 400 as const, code: "RUN_NOT_AVAILABLE" };
      const consent = await requireConsent(deps, run, "claim", body.consent, signer, { agentId: agent.id });
      const result = await relayEscrow(deps, "claimBySig", [onchain(run), BigInt(agent.id), consent], {
        overrides: { RunEscrowInvalidState: unavailable, RunEscrowDeadlinePassed: unavailable },
      });
      await recordAction(deps, {
        runId: id,
        action: "claim-run",
        signer,
        agentId: agent.id,
        txHash: result.txHash,
        detail: { walletAddress: signer },
      });
      return result;
    });
    await waitForRunTx(deps, relayed);
    const [run, updated, params] = await Promise.all([
      getRun(deps, id),
      findAgent(deps, agent.id),
      deps.params.current(),
    ]);
    await emitOrgEvent(
      deps,
      "bounty.claimed",
      agent.id,
      { bountyId: id, agentId: agent.id, reward: run.reward.toString(), txHash: relayed.txHash },
      `bounty.claimed:${id}:${relayed.txHash.toLowerCase()}`,
    );
    return c.json(
      {
        success: true,
        run: await toRunDetail(deps, run),
        agent: {
          id: agent.id,
          status: statusOf(updated!, await chainNow(deps), params.minStake),
          stakedAmount: activeStake(updated!.stake).toString(),
        },
        txHash: relayed.txHash,
        message: `Agent ${agent.id} claimed run ${id}. Start with POST /api/runs/${id}/start, submit before ${isoFromSeconds(run.claimedAt! + params.claimTimeout)} or the stake can be slashed.`,
      },
      200,
    );
  })
  .openapi(startRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(
      await runStep(c, id, body, {
        action: "start-run",
        actor: "agent",
        from: ["CLAIMED"],
        verb: "start",
        send: (deps, run, signer) => relayConsented(deps, run, "start", body.consent, signer),
        done: (run) => `Run ${run.id} is IN_PROGRESS.`,
      }),
      200,
    );
  })
  .openapi(submitRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { message, signature, deliverable, deliverableHash, consent } = c.req.valid("json");
    let stored: string | undefined;
    return c.json(
      await runStep(
        c,
        id,
        { message, signature },
        {
          action: "submit-run",
          actor: "agent",
          from: ["CLAIMED", "IN_PROGRESS", "REVISION_REQUESTED"],
          verb: "submit",
          send: async (deps, run, signer) => {
            // The chain keeps the sha-256 of the stored JSON text: the deliverable's CID can be rebuilt from it, and
            // the agent's consent names it before anything is stored.
            const hash = (deliverable === undefined ? deliverableHash : deliverableHashOf(deliverable)) as Hex;
            const c = await requireConsent(deps, run, "submit", consent, signer, { deliverableHash: hash });
            if (deliverable !== undefined) stored = (await deps.ipfs.putJson(deliverable)).uri;
            return relayEscrow(deps, "submitBySig", [onchain(run), hash, c]);
          },
          detail: () => (stored ? { deliverableUri: stored } : {}),
          done: (run) =>
            `Run ${run.id} is SUBMITTED${run.revisions ? ` (after ${run.revisions} revision(s))` : ""}; waiting for the poster.`,
        },
      ),
      200,
    );
  })
  .openapi(approveRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(
      await runStep(c, id, body, {
        action: "approve-run",
        actor: "poster",
        from: ["SUBMITTED"],
        verb: "approve",
        send: (deps, run, signer) => relayConsented(deps, run, "approve", body.consent, signer),
        after: (deps, run, txHash) => emitBountyCompleted(deps, run, txHash),
        done: (run) =>
          `Run ${run.id} is APPROVED: ${run.reward} base units paid to agent ${run.agentId}'s owner, ${run.fee} kept as the platform fee.`,
      }),
      200,
    );
  })
  .openapi(revisionRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { feedback, consent, ...signed } = c.req.valid("json");
    return c.json(
      await runStep(c, id, signed, {
        action: "request-revision",
        actor: "poster",
        from: ["SUBMITTED"],
        verb: "request a revision of",
        send: (deps, run, signer) => {
          if (run.revisions >= run.maxRevisions) {
            throw errors.conflict(
              "REVISIONS_EXHAUSTED",
              `all ${run.maxRevisions} revision(s) are used; approve, reject or dispute`,
            );
          }
          return relayConsented(deps, run, "requestRevision", consent, signer);
        },
        detail: () => ({ feedback }),
        done: (run) =>
          `Revision ${run.revisions} of ${run.maxRevisions} requested for run ${run.id}; if the agent does not resubmit in time (the escrow's claim timeout, from now) the poster may slash its stake.`,
      }),
      200,
    );
  })
  .openapi(rejectRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { reason, consent, ...signed } = c.req.valid("json");
    return c.json(
      await runStep(c, id, signed, {
        action: "reject-run",
        actor: "poster",
        from: ["SUBMITTED"],
        verb: "reject",
        send: (deps, run, signer) => {
          if (run.revisions < run.maxRevisions) {
            throw errors.conflict(
              "REVISIONS_REMAINING",
              `a run can be rejected only after all revisions: ${run.revisions} of ${run.maxRevisions} used`,
            );
          }
          return relayConsented(deps, run, "reject", consent, signer);
        },
        detail: () => ({ reason }),
        done: (run) => `Run ${run.id} is REJECTED: ${run.reward + run.fee} base units refunded to the poster.`,
      }),
      200,
    );
  })
  .openapi(disputeRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { reason, consent, ...signed } = c.req.valid("json");
    return c.json(
      await runStep(c, id, signed, {
        action: "dispute-run",
        actor: "party",
        from: ["SUBMITTED", "REVISION_REQUESTED"],
        verb: "dispute",
        send: (deps, run, signer) => relayConsented(deps, run, "dispute", consent, signer),
        detail: () => ({ reason }),
        done: (run) => `Run ${run.id} is DISPUTED; an arbiter resolves it for the agent or the poster.`,
      }),
      200,
    );
  })
  .openapi(cancelRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(
      await runStep(c, id, body, {
        action: "cancel-run",
        actor: "poster",
        from: ["OPEN"],
        verb: "cancel",
        send: (deps, run, signer) => relayConsented(deps, run, "cancel", body.consent, signer),
        done: (run) => `Run ${run.id} is CANCELLED: ${run.reward + run.fee} base units refunded to the poster.`,
      }),
      200,
    );
  })
  .openapi(timeoutRoute, async (c) => {
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(
      await runStep(c, id, body, {
        action: "timeout-slash",
        actor: "poster",
        from: ["CLAIMED", "IN_PROGRESS", "REVISION_REQUESTED"],
        verb: "timeout-slash",
        send: async (deps, run) => {
          // The escrow's timeout (a governance parameter) runs from the claim, or from the last revision request.
          const revision = run.state === "REVISION_REQUESTED";
          const availableAt =
            (revision ? run.revisionRequestedAt! : run.claimedAt!) + (await deps.params.fresh()).claimTimeout;
          if ((await chainNow(deps)) < availableAt) {
            throw errors.conflict(
              "TIMEOUT_NOT_REACHED",
              revision
                ? `the agent has until ${isoFromSeconds(availableAt)} to resubmit after the revision request`
                : `the agent has until ${isoFromSeconds(availableAt)} to submit after its claim`,
            );
          }
          return relayEscrow(deps, "timeoutSlash", [onchain(run)]);
        },
        detail: (run) => ({ agentId: run.agentId }),
        done: (run) =>
          `Run ${run.id} TIMED_OUT: reward + fee refunded, agent ${run.failedAgentId}'s stake slashed to the poster; the agent is FROZEN until it stakes again (BANNED at its third slash).`,
      }),
      200,
    );
  })
  .openapi(resolveRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { outcome, note } = c.req.valid("json");
    await getRun(deps, id);
    const relayed = await withRunLock(deps, id, async () => {
      const run = await getRun(deps, id);
      assertState(run, ["DISPUTED"], "resolve");
      if (!deps.arbiter) {
        throw errors.unavailable(
          "ARBITER_NOT_CONFIGURED",
          "disputes are resolved by RunEscrow's ARBITER_ROLE (not the relayer): set ARBITER_PRIVATE_KEY, or resolve from the arbiter's wallet",
        );
      }
      const result = await deps.arbiter.resolve(onchain(run), outcome === "agent");
      await recordAction(deps, {
        runId: id,
        action: "resolve-run",
        signer: null,
        agentId: run.agentId,
        txHash: result.txHash,
        detail: { by: "admin", arbiter: deps.arbiter.address, outcome, ...(note ? { note } : {}) },
      });
      return result;
    });
    await waitForRunTx(deps, relayed);
    const run = await getRun(deps, id);
    // Resolved for the agent, the run is APPROVED and paid: a completion like an approval by the poster.
    if (outcome === "agent") {
      await emitBountyCompleted(deps, run, relayed.txHash);
    }
    return c.json(
      {
        success: true,
        run: await toRunDetail(deps, run),
        txHash: relayed.txHash,
        message:
          outcome === "agent"
            ? `Dispute resolved for the agent: run ${id} is APPROVED and paid.`
            : `Dispute resolved for the poster: agent ${run.failedAgentId}'s stake was slashed to the poster and run ${id} is OPEN again.`,
      },
      200,
    );
  });

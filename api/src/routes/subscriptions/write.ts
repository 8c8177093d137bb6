// Subscription writes, all signed by the poster (SIWE, single-use nonce, resource
// urn:agenthub:<action>:subscription:<id>); opening also carries the poster's EIP-712 consent to the terms and a
// USDC permit, which the relayer submits (it cannot change the terms or spend the balance elsewhere). The rules are
// in use-cases/subscriptions.
import { createRoute } from "@hono/zod-openapi";
import type { Address } from "viem";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { changeSubscription } from "../../use-cases/subscriptions/change-subscription.ts";
import { createSubscription } from "../../use-cases/subscriptions/create-subscription.ts";
import { topupSubscription } from "../../use-cases/subscriptions/topup-subscription.ts";
import { createBody, signedBody, topupBody } from "./bodies.ts";
import { createResult, idParam, outcome } from "./schemas.ts";
import { toSubscription } from "./views.ts";

const tags = ["subscriptions"];

const createSubRoute = createRoute({
  method: "post",
  path: "/",
  tags,
  summary:
    "Create a subscription: the relayer opens it in the SubscriptionVault from the poster's EIP-712 consent to the terms (preview's terms) and a USDC permit of `amount` (at least costs.totalPerRun; costs.total pays every run) (signed: subscription-create:subscription:new)",
  request: { body: jsonBody(createBody) },
  responses: { 201: json(createResult, "Created (ACTIVE)"), ...errorResponses(400, 401, 403, 503) },
});

const topupRoute = createRoute({
  method: "post",
  path: "/{id}/topup",
  tags,
  summary:
    "Add `amount` to the vault balance by the poster's USDC permit; an EXHAUSTED subscription that can pay a run is ACTIVE again, its next run due now (signed: subscription-topup)",
  request: { params: idParam, body: jsonBody(topupBody) },
  responses: { 200: json(outcome, "Credited"), ...errorResponses(400, 401, 403, 404, 409, 503) },
});

const pauseRoute = createRoute({
  method: "post",
  path: "/{id}/pause",
  tags,
  summary: "ACTIVE or EXHAUSTED -> PAUSED on chain: the vault creates no runs (signed: subscription-pause)",
  request: { params: idParam, body: jsonBody(signedBody) },
  responses: { 200: json(outcome, "Paused"), ...errorResponses(400, 401, 403, 404, 409) },
});

const resumeRoute = createRoute({
  method: "post",
  path: "/{id}/resume",
  tags,
  summary:
    "PAUSED -> ACTIVE (EXHAUSTED if the balance cannot pay a run); the next run is due at max(scheduled, now) (signed: subscription-resume)",
  request: { params: idParam, body: jsonBody(signedBody) },
  responses: { 200: json(outcome, "Resumed"), ...errorResponses(400, 401, 403, 404, 409) },
});

const cancelRoute = createRoute({
  method: "delete",
  path: "/{id}",
  tags,
  summary:
    "ACTIVE, PAUSED or EXHAUSTED -> CANCELLED; the vault refunds the unspent balance to the poster on chain (signed: subscription-cancel)",
  request: { params: idParam, body: jsonBody(signedBody) },
  responses: { 200: json(outcome, "Cancelled"), ...errorResponses(400, 401, 403, 404, 409) },
});

export const subscriptionWriteRoutes = router()
  .openapi(createSubRoute, async (c) => {
    const body = c.req.valid("json");
    const r = await createSubscription(c.get("deps"), {
      ...body,
      posterAddress: body.posterAddress as Address,
      rewardPerRun: BigInt(body.rewardPerRun),
      amount: BigInt(body.amount),
    });
    const { cadence } = r;
    return c.json(
      {
        subscription: toSubscription(r.row),
        detected: r.detected,
        costs: r.costs,
        txHash: r.txHash,
        credited: r.amount.toString(),
        message: `Subscription ${r.row.id} is ${r.row.status}: ${cadence.totalRuns === null ? "open-ended" : `${cadence.totalRuns} runs`}, ${cadence.cadence}, first run at ${isoFromSeconds(r.startsAt)}; ${r.amount} USDC base units escrowed in the SubscriptionVault (id ${r.vaultId}).`,
      },
      201,
    );
  })
  .openapi(topupRoute, async (c) => {
    const body = c.req.valid("json");
    const amount = BigInt(body.amount);
    const r = await topupSubscription(c.get("deps"), { ...body, id: c.req.valid("param").id, amount });
    const subscription = toSubscription(r.row);
    return c.json(
      {
        success: true,
        subscription,
        credited: amount.toString(),
        txHash: r.txHash,
        message: `${amount} USDC base units added in the vault; balance ${subscription.balanceRemaining}, status ${subscription.status}.`,
      },
      200,
    );
  })
  .openapi(pauseRoute, async (c) => {
    const { id } = c.req.valid("param");
    const r = await changeSubscription(c.get("deps"), { ...c.req.valid("json"), id, change: "pause" });
    return c.json(
      {
        success: true,
        subscription: toSubscription(r.row),
        txHash: r.txHash,
        message: `Subscription ${id} is PAUSED: the vault creates no runs.`,
      },
      200,
    );
  })
  .openapi(resumeRoute, async (c) => {
    const { id } = c.req.valid("param");
    const r = await changeSubscription(c.get("deps"), { ...c.req.valid("json"), id, change: "resume" });
    const subscription = toSubscription(r.row);
    return c.json(
      {
        success: true,
        subscription,
        txHash: r.txHash,
        message:
          subscription.status === "ACTIVE"
            ? `Subscription ${id} is ACTIVE; next run at ${subscription.nextRunAt}.`
            : `Subscription ${id} is EXHAUSTED: top up at least ${subscription.totalPerRun} base units to continue.`,
      },
      200,
    );
  })
  .openapi(cancelRoute, async (c) => {
    const { id } = c.req.valid("param");
    const r = await changeSubscription(c.get("deps"), { ...c.req.valid("json"), id, change: "cancel" });
    return c.json(
      {
        success: true,
        subscription: toSubscription(r.row),
        refunded: r.refunded.toString(),
        txHash: r.txHash,
        message: `Subscription ${id} is CANCELLED; the vault refunded ${r.refunded} USDC base units to ${r.poster}. Runs already created are unaffected.`,
      },
      200,
    );
  });

// Subscriptions: recurring runs from a natural-language cadence, prepaid in USDC (reward + 5% fee per run).
// Writes are signed by the poster (SIWE, single-use nonce, resource urn:agenthub:<action>:subscription:<id>).
// Checks run in this order and nothing changes when one fails: body, cadence and reward (400), subscription
// exists (404), signature (401), poster (403), state (409), payment (400).
import { createRoute } from "@hono/zod-openapi";
import type { PoolClient } from "pg";
import { type Address, getAddress, type Hex, isAddressEqual } from "viem";
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { CadenceError, costsOf, feeOf, parseCadence, SUBSCRIPTION_LIMITS } from "../../domain/cadence.ts";
import { ApiError, errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import { chainNow } from "../runs/escrow.ts";
import {
  findSubscription,
  iso,
  type SubscriptionRow,
  type SubscriptionStatus,
  subscriptionAccount,
  subscriptionRuns,
  toSubscription,
  txAlreadyUsed,
  verifyPayment,
} from "./repository.ts";
import {
  createBody,
  createResult,
  detailResult,
  idParam,
  listQuery,
  listResult,
  outcome,
  previewQuery,
  previewResult,
  signedBody,
  topupBody,
} from "./schemas.ts";

const tags = ["subscriptions"];

const previewRoute = createRoute({
  method: "get",
  path: "/api/subscriptions/parse-cadence",
  tags,
  summary: "Preview the cadence, schedule and prepaid cost of instructions (nothing is created)",
  request: { query: previewQuery },
  responses: { 200: json(previewResult, "Detected cadence and costs"), ...errorResponses(400) },
});
const createSubRoute = createRoute({
  method: "post",
  path: "/api/subscriptions",
  tags,
  summary:
    "Create a subscription prepaid by the poster's USDC transfer (txHash) to the subscription account (paymentAddress of parse-cadence): costs.total pays every run, at least costs.totalPerRun is needed (signed: subscription-create:subscription:new)",
  request: { body: jsonBody(createBody) },
  responses: { 201: json(createResult, "Created (ACTIVE)"), ...errorResponses(400, 401, 403, 503) },
});
const listRoute = createRoute({
  method: "get",
  path: "/api/subscriptions",
  tags,
  summary: "List subscriptions, newest first",
  request: { query: listQuery },
  responses: { 200: json(listResult, "Subscriptions"), ...errorResponses(400) },
});
const getRoute = createRoute({
  method: "get",
  path: "/api/subscriptions/{id}",
  tags,
  summary: "A subscription and the runs it created (bountyId: use the runs API)",
  request: { params: idParam },
  responses: { 200: json(detailResult, "Subscription"), ...errorResponses(400, 404) },
});
const topupRoute = createRoute({
  method: "post",
  path: "/api/subscriptions/{id}/topup",
  tags,
  summary:
    "Credit another USDC transfer to the balance; an EXHAUSTED subscription that can pay a run is ACTIVE again (signed: subscription-topup)",
  request: { params: idParam, body: jsonBody(topupBody) },
  responses: { 200: json(outcome, "Credited"), ...errorResponses(400, 401, 403, 404, 409, 503) },
});
const pauseRoute = createRoute({
  method: "post",
  path: "/api/subscriptions/{id}/pause",
  tags,
  summary: "ACTIVE or EXHAUSTED -> PAUSED: no runs are created (signed: subscription-pause)",
  request: { params: idParam, body: jsonBody(signedBody) },
  responses: { 200: json(outcome, "Paused"), ...errorResponses(400, 401, 403, 404, 409) },
});
const resumeRoute = createRoute({
  method: "post",
  path: "/api/subscriptions/{id}/resume",
  tags,
  summary:
    "PAUSED -> ACTIVE (EXHAUSTED if the balance cannot pay a run); the next run is due at max(scheduled, now) (signed: subscription-resume)",
  request: { params: idParam, body: jsonBody(signedBody) },
  responses: { 200: json(outcome, "Resumed"), ...errorResponses(400, 401, 403, 404, 409) },
});
const cancelRoute = createRoute({
  method: "delete",
  path: "/api/subscriptions/{id}",
  tags,
  summary:
    "ACTIVE, PAUSED or EXHAUSTED -> CANCELLED; the remaining balance is forfeited to the platform (signed: subscription-cancel)",
  request: { params: idParam, body: jsonBody(signedBody) },
  responses: { 200: json(outcome, "Cancelled"), ...errorResponses(400, 401, 403, 404, 409) },
});

function checkReward(reward: bigint) {
  if (reward < SUBSCRIPTION_LIMITS.minRewardPerRun || reward > SUBSCRIPTION_LIMITS.maxRewardPerRun) {
    throw new ApiError(
      400,
      "INVALID_REWARD",
      `rewardPerRun must be between ${SUBSCRIPTION_LIMITS.minRewardPerRun} and ${SUBSCRIPTION_LIMITS.maxRewardPerRun} USDC base units`,
    );
  }
}

function detect(instructions: string, rewardPerRun: string, now: bigint) {
  const reward = BigInt(rewardPerRun);
  checkReward(reward);
  try {
    const c = parseCadence(instructions, now);
    return {
      cadence: c,
      detected: {
        cadence: c.cadence,
        interval: c.interval,
        everySeconds: c.everySeconds,
        totalRuns: c.totalRuns,
        startsAt: iso(c.startsAt)!,
        endsAt: iso(c.endsAt)!,
        task: c.task,
      },
      costs: costsOf(reward, c.totalRuns),
    };
  } catch (error) {
    if (error instanceof CadenceError) throw new ApiError(400, error.code, error.message);
    throw error;
  }
}

const limits = {
  maxRuns: SUBSCRIPTION_LIMITS.maxRuns,
  maxDurationSeconds: SUBSCRIPTION_LIMITS.maxDurationSeconds,
  minIntervalSeconds: SUBSCRIPTION_LIMITS.minIntervalSeconds,
  minRewardPerRun: SUBSCRIPTION_LIMITS.minRewardPerRun.toString(),
  maxRewardPerRun: SUBSCRIPTION_LIMITS.maxRewardPerRun.toString(),
};

const notPoster = (row: SubscriptionRow) =>
  errors.forbidden("NOT_SUBSCRIPTION_POSTER", `only subscription ${row.id}'s poster ${row.poster_address} may do this`);

const wrongState = (row: SubscriptionRow, action: string, allowed: SubscriptionStatus[]) =>
  errors.conflict(
    "INVALID_SUBSCRIPTION_STATE",
    `subscription ${row.id} is ${row.status}; ${action} needs ${allowed.join(" or ")}`,
  );

/** Verifies the poster's signed action on subscription `id`; returns the row. */
async function authorize(deps: Deps, id: number, body: { message: string; signature: string }, action: string) {
  const row = await findSubscription(deps, id);
  const signer = await verifySignedAction(deps, body, { action, kind: "subscription", id });
  if (!isAddressEqual(signer, row.poster_address as Address)) throw notPoster(row);
  return row;
}

/** Runs `fn` on the locked row inside a transaction (serialized with the scheduler and other writes). */
async function withLockedSubscription<T>(
  deps: Deps,
  id: number,
  fn: (client: PoolClient, row: SubscriptionRow) => Promise<T>,
): Promise<T> {
  return await withTransaction(deps.pool, async (client) => {
    const r = await client.query<SubscriptionRow>("select * from api.subscription where id = $1 for update", [id]);
    const result = await fn(client, r.rows[0]!);
    return result;
  });
}

const perRunOf = (row: SubscriptionRow) => BigInt(row.reward_per_run) + BigInt(row.fee_per_run);
/** When a subscription (re)starts: the missed schedule is not replayed at once, the next run is due now. */
const restartAt = (row: SubscriptionRow, now: bigint) =>
  (row.next_run_at === null || BigInt(row.next_run_at) < now ? now : BigInt(row.next_run_at)).toString();

async function updated(client: PoolClient, id: number) {
  const r = await client.query<SubscriptionRow>("select * from api.subscription where id = $1", [id]);
  return toSubscription(r.rows[0]!);
}

export const subscriptionRoutes = router()
  .openapi(previewRoute, async (c) => {
    const deps = c.get("deps");
    const { instructions, rewardPerRun } = c.req.valid("query");
    const { detected, costs } = detect(instructions, rewardPerRun, await chainNow(deps));
    return c.json({ detected, costs, paymentAddress: await subscriptionAccount(deps), limits }, 200);
  })
  .openapi(createSubRoute, async (c) => {
    const deps = c.get("deps");
    const { message, signature, ...body } = c.req.valid("json");
    const now = await chainNow(deps);
    const { cadence, detected, costs } = detect(body.instructions, body.rewardPerRun, now);
    const signer = await verifySignedAction(
      deps,
      { message, signature },
      { action: "subscription-create", kind: "subscription", id: "new" },
    );
    if (!isAddressEqual(signer, body.posterAddress as Address)) {
      throw errors.forbidden("NOT_SUBSCRIPTION_POSTER", "the message must be signed by posterAddress");
    }
    const poster = getAddress(body.posterAddress);
    const hash = body.txHash.toLowerCase() as Hex;
    // At least one run must be paid; costs.total pays them all. Fewer runs paid: EXHAUSTED until topped up.
    const credited = await verifyPayment(deps, hash, poster, BigInt(costs.totalPerRun));
    const reward = BigInt(body.rewardPerRun);
    const id = await withTransaction(deps.pool, async (client) => {
      const r = await client.query<{ id: string }>(
        `insert into api.subscription (poster_address, instructions, task, cadence, interval_label, every_seconds,
           total_runs, reward_per_run, fee_per_run, balance_remaining, total_funded, status, starts_at, next_run_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, 'ACTIVE', $11, $11) returning id`,
        [
          poster,
          body.instructions,
          cadence.task,
          cadence.cadence,
          cadence.interval,
          cadence.everySeconds,
          cadence.totalRuns,
          reward.toString(),
          feeOf(reward).toString(),
          credited.toString(),
          cadence.startsAt.toString(),
        ],
      );
      const id = Number(r.rows[0]!.id);
      await client.query(
        "insert into api.subscription_payment (tx_hash, subscription_id, kind, payer, amount) values ($1, $2, 'create', $3, $4)",
        [hash, id, poster, credited.toString()],
      );
      await client.query(
        "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, tx_hash) values ($1, 'fund', $2, $2, $3)",
        [id, credited.toString(), hash],
      );
      return id;
    }).catch((error) => {
      // The payment's txHash is unique: a second use (any process) loses the insert race.
      if ((error as { code?: string }).code === "23505") throw txAlreadyUsed(hash);
      throw error;
    });
    const row = await findSubscription(deps, id);
    return c.json(
      {
        subscription: toSubscription(row),
        detected,
        costs,
        txHash: hash,
        credited: credited.toString(),
        message: `Subscription ${id} is ACTIVE: ${cadence.totalRuns} runs ${cadence.cadence}, first run at ${detected.startsAt}; ${credited} USDC base units credited.`,
      },
      201,
    );
  })
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const q = c.req.valid("query");
    const where: string[] = [];
    const params: unknown[] = [];
    if (q.posterAddress) {
      params.push(q.posterAddress.toLowerCase());
      where.push(`lower(poster_address) = $${params.length}`);
    }
    if (q.status) {
      params.push(q.status);
      where.push(`status = $${params.length}`);
    }
    const filter = where.length ? `where ${where.join(" and ")}` : "";
    const total = await deps.pool.query<{ n: number }>(
      `select count(*)::int n from api.subscription ${filter}`,
      params,
    );
    const rows = await deps.pool.query<SubscriptionRow>(
      `select * from api.subscription ${filter} order by id desc limit $${params.length + 1} offset $${params.length + 2}`,
      [...params, q.limit, (q.page - 1) * q.limit],
    );
    return c.json(
      { subscriptions: rows.rows.map(toSubscription), total: total.rows[0]!.n, page: q.page, limit: q.limit },
      200,
    );
  })
  .openapi(getRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const row = await findSubscription(deps, id);
    return c.json({ subscription: toSubscription(row), runs: await subscriptionRuns(deps, id) }, 200);
  })
  .openapi(topupRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const row = await authorize(deps, id, body, "subscription-topup");
    const open: SubscriptionStatus[] = ["ACTIVE", "PAUSED", "EXHAUSTED"];
    if (!open.includes(row.status)) throw wrongState(row, "a top-up", open);
    const amount = BigInt(body.amount);
    if (amount === 0n) throw errors.validation("amount: must be positive");
    const hash = body.txHash.toLowerCase() as Hex;
    const credited = await verifyPayment(deps, hash, getAddress(row.poster_address), amount);
    const now = await chainNow(deps);
    try {
      const subscription = await withLockedSubscription(deps, id, async (client, locked) => {
        if (!open.includes(locked.status)) throw wrongState(locked, "a top-up", open);
        const balance = BigInt(locked.balance_remaining) + credited;
        const reactivate = locked.status === "EXHAUSTED" && balance >= perRunOf(locked);
        await client.query(
          "insert into api.subscription_payment (tx_hash, subscription_id, kind, payer, amount) values ($1, $2, 'topup', $3, $4)",
          [hash, id, locked.poster_address, credited.toString()],
        );
        await client.query(
          `update api.subscription set balance_remaining = $2, total_funded = total_funded + $3, status = $4,
             next_run_at = $5, updated_at = now() where id = $1`,
          [
            id,
            balance.toString(),
            credited.toString(),
            reactivate ? "ACTIVE" : locked.status,
            reactivate ? restartAt(locked, now) : locked.next_run_at,
          ],
        );
        await client.query(
          "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, tx_hash) values ($1, 'topup', $2, $3, $4)",
          [id, credited.toString(), balance.toString(), hash],
        );
        return updated(client, id);
      });
      return c.json(
        {
          success: true,
          subscription,
          credited: credited.toString(),
          txHash: hash,
          message: `${credited} USDC base units credited; balance ${subscription.balanceRemaining}, status ${subscription.status}.`,
        },
        200,
      );
    } catch (error) {
      if ((error as { code?: string }).code === "23505") throw txAlreadyUsed(hash);
      throw error;
    }
  })
  .openapi(pauseRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const allowed: SubscriptionStatus[] = ["ACTIVE", "EXHAUSTED"];
    const row = await authorize(deps, id, c.req.valid("json"), "subscription-pause");
    if (!allowed.includes(row.status)) throw wrongState(row, "pause", allowed);
    const subscription = await withLockedSubscription(deps, id, async (client, locked) => {
      if (!allowed.includes(locked.status)) throw wrongState(locked, "pause", allowed);
      await client.query("update api.subscription set status = 'PAUSED', updated_at = now() where id = $1", [id]);
      return updated(client, id);
    });
    return c.json({ success: true, subscription, message: `Subscription ${id} is PAUSED: no runs are created.` }, 200);
  })
  .openapi(resumeRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const allowed: SubscriptionStatus[] = ["PAUSED"];
    const row = await authorize(deps, id, c.req.valid("json"), "subscription-resume");
    if (!allowed.includes(row.status)) throw wrongState(row, "resume", allowed);
    const now = await chainNow(deps);
    const subscription = await withLockedSubscription(deps, id, async (client, locked) => {
      if (!allowed.includes(locked.status)) throw wrongState(locked, "resume", allowed);
      const status = BigInt(locked.balance_remaining) >= perRunOf(locked) ? "ACTIVE" : "EXHAUSTED";
      await client.query(
        "update api.subscription set status = $2, next_run_at = $3, updated_at = now() where id = $1",
        [id, status, restartAt(locked, now)],
      );
      return updated(client, id);
    });
    return c.json(
      {
        success: true,
        subscription,
        message:
          subscription.status === "ACTIVE"
            ? `Subscription ${id} is ACTIVE; next run at ${subscription.nextRunAt}.`
            : `Subscription ${id} is EXHAUSTED: top up at least ${subscription.totalPerRun} base units to continue.`,
      },
      200,
    );
  })
  .openapi(cancelRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const allowed: SubscriptionStatus[] = ["ACTIVE", "PAUSED", "EXHAUSTED"];
    const row = await authorize(deps, id, c.req.valid("json"), "subscription-cancel");
    if (!allowed.includes(row.status)) throw wrongState(row, "cancel", allowed);
    const { subscription, forfeited } = await withLockedSubscription(deps, id, async (client, locked) => {
      if (!allowed.includes(locked.status)) throw wrongState(locked, "cancel", allowed);
      const forfeited = locked.balance_remaining;
      await client.query(
        `update api.subscription set status = 'CANCELLED', forfeited = forfeited + balance_remaining,
           balance_remaining = 0, next_run_at = null, updated_at = now() where id = $1`,
        [id],
      );
      await client.query(
        "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after) values ($1, 'forfeit', $2, 0)",
        [id, forfeited],
      );
      return { subscription: await updated(client, id), forfeited };
    });
    return c.json(
      {
        success: true,
        subscription,
        forfeited,
        message: `Subscription ${id} is CANCELLED; ${forfeited} USDC base units of remaining balance are forfeited to the platform. Runs already created are unaffected.`,
      },
      200,
    );
  });

// Subscriptions: recurring runs from a natural-language cadence, prepaid in USDC (reward + 5% fee per run) into the
// SubscriptionVault contract, escrowed per subscriber. Writes are signed by the poster (SIWE, single-use nonce,
// resource urn:agenthub:<action>:subscription:<id>); opening also carries the poster's EIP-712 consent to the terms
// and a USDC permit, which the relayer submits (it cannot change the terms or spend the balance elsewhere).
// Checks run in this order and nothing changes when one fails: body, cadence and reward (400), subscription
// exists (404), signature (401), poster (403), state (409), payment (400).
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import { subscribeTypedData } from "@agenthub/sdk/protocol";
import { createRoute } from "@hono/zod-openapi";
import { type Address, getAddress, type Hex, isAddressEqual } from "viem";
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import {
  type Cadence,
  CadenceError,
  costsOf,
  DAY,
  feeOf,
  firstRunAt,
  nextRuns,
  parseCadence,
  SUBSCRIPTION_LIMITS,
} from "../../domain/cadence.ts";
import { ApiError, errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { verifiedPermit } from "../../lib/permit.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import { orgAddresses } from "../../stores/org-scope.ts";
import { chainNow } from "../runs/escrow.ts";
import {
  findSubscription,
  iso,
  type SubscriptionRow,
  type SubscriptionStatus,
  subscriptionRuns,
  toSubscription,
  txAlreadyUsed,
} from "./repository.ts";
import {
  createBody,
  createResult,
  idParam,
  listQuery,
  listResult,
  outcome,
  previewQuery,
  previewResult,
  runsQuery,
  runsResult,
  signedBody,
  subscription as subscriptionSchema,
  topupBody,
} from "./schemas.ts";
import { SUBSCRIPTION_RUN_MAX_REVISIONS, syncFromChain, vault, vaultEvent } from "./vault.ts";

const tags = ["subscriptions"];

const previewRoute = createRoute({
  method: "get",
  path: "/parse-cadence",
  tags,
  summary: "Preview the cadence, schedule and prepaid cost of instructions (nothing is created)",
  request: { query: previewQuery },
  responses: { 200: json(previewResult, "Detected cadence and costs"), ...errorResponses(400) },
});
const createSubRoute = createRoute({
  method: "post",
  path: "/",
  tags,
  summary:
    "Create a subscription: the relayer opens it in the SubscriptionVault from the poster's EIP-712 consent to the terms (preview's terms) and a USDC permit of `amount` (at least costs.totalPerRun; costs.total pays every run) (signed: subscription-create:subscription:new)",
  request: { body: jsonBody(createBody) },
  responses: { 201: json(createResult, "Created (ACTIVE)"), ...errorResponses(400, 401, 403, 503) },
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

function checkReward(reward: bigint) {
  if (reward < SUBSCRIPTION_LIMITS.minRewardPerRun || reward > SUBSCRIPTION_LIMITS.maxRewardPerRun) {
    throw new ApiError(
      400,
      "INVALID_REWARD",
      `rewardPerRun must be between ${SUBSCRIPTION_LIMITS.minRewardPerRun} and ${SUBSCRIPTION_LIMITS.maxRewardPerRun} USDC base units`,
    );
  }
}

/** Run times listed by the preview. */
const PREVIEW_RUNS = 5;
const WEEKDAY_NAMES = ["sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"];
const timeOfDay = (s: number) =>
  `${String(Math.floor(s / 3600)).padStart(2, "0")}:${String(Math.floor((s % 3600) / 60)).padStart(2, "0")} UTC`;

function detect(instructions: string, rewardPerRun: string, now: bigint, feeBps: bigint) {
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
        endsAt: iso(c.endsAt),
        nextRuns: nextRuns(c, PREVIEW_RUNS).map((t) => iso(t)!),
        anchor: c.anchor && {
          ...(c.anchor.weekday === undefined ? {} : { weekday: WEEKDAY_NAMES[c.anchor.weekday]! }),
          ...(c.anchor.secondOfDay === undefined ? {} : { timeOfDay: timeOfDay(c.anchor.secondOfDay) }),
        },
        task: c.task,
      },
      costs: costsOf(reward, c.totalRuns, feeBps),
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

/** The vault's reverts the API's own checks did not foresee (a direct transaction raced it). */
const VAULT_REVERTS: RevertCodes = {
  SubscriptionVaultInvalidStatus: { status: 409, code: "INVALID_SUBSCRIPTION_STATE" },
  SubscriptionVaultInvalidSignature: { status: 400, code: "INVALID_CONSENT" },
  SubscriptionVaultExpiredSignature: { status: 400, code: "INVALID_CONSENT" },
  SubscriptionVaultInvalidTerms: { status: 400, code: "INVALID_CADENCE" },
  SubscriptionVaultZeroAmount: { status: 400, code: "VALIDATION_ERROR" },
  ERC20InsufficientBalance: { status: 400, code: "INSUFFICIENT_FUNDS" },
  ERC20InsufficientAllowance: { status: 400, code: "INVALID_PERMIT" },
  EnforcedPause: { status: 409, code: "CONTRACT_PAUSED" },
};

/** Verifies the poster's signed action on subscription `id`; returns the row, refreshed from the vault. */
async function authorize(deps: Deps, id: number, body: { message: string; signature: string }, action: string) {
  const row = await findSubscription(deps, id);
  const signer = await verifySignedAction(deps, body, { action, kind: "subscription", id });
  if (!isAddressEqual(signer, row.poster_address as Address)) throw notPoster(row);
  return syncFromChain(deps, row);
}

/** Each run's deadline: one interval after it is created, at least a day (the vault's terms.runDuration). */
const runDurationOf = (everySeconds: number) => Math.min(Math.max(everySeconds, DAY), 366 * DAY);

/** The vault terms of a cadence for `poster`, first run at `startsAt`. */
function termsOf(cadence: Cadence, reward: bigint, poster: Address, startsAt: number) {
  return {
    subscriber: poster,
    rewardPerRun: reward,
    interval: cadence.everySeconds,
    startsAt,
    totalRuns: cadence.totalRuns ?? 0,
    runDuration: runDurationOf(cadence.everySeconds),
    maxRevisions: SUBSCRIPTION_RUN_MAX_REVISIONS,
  };
}

/** How long a preview's startsAt stays valid for creation. */
const START_GRACE_SECONDS = 900n;

/** A signed first run is the cadence's first run as of some moment in the last 15 minutes (chain time). */
function checkStart(cadence: Cadence, startsAt: number, now: bigint) {
  const t = BigInt(startsAt);
  const ok = cadence.anchor
    ? t === firstRunAt(cadence.anchor, now) || t === firstRunAt(cadence.anchor, now - START_GRACE_SECONDS)
    : t <= now + 60n && t >= now - START_GRACE_SECONDS;
  if (!ok) {
    throw new ApiError(
      400,
      "INVALID_START",
      `startsAt ${startsAt} is not this cadence's first run (now ${now}: ${firstRunAt(cadence.anchor, now)}); take terms.startsAt from a fresh preview`,
    );
  }
}

async function usdcBalanceOf(deps: Deps, who: Address): Promise<bigint> {
  return deps.chain.readContract({
    address: deps.deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "balanceOf",
    args: [who],
  });
}

async function updated(deps: Deps, id: number) {
  return toSubscription(await findSubscription(deps, id));
}

export const subscriptionRoutes = router()
  .openapi(previewRoute, async (c) => {
    const deps = c.get("deps");
    const { instructions, rewardPerRun, posterAddress } = c.req.valid("query");
    const [now, { feeBps }] = await Promise.all([chainNow(deps), deps.params.current()]);
    const { cadence, detected, costs } = detect(instructions, rewardPerRun, now, feeBps);
    const t = termsOf(cadence, BigInt(rewardPerRun), posterAddress as Address, Number(cadence.startsAt));
    const nonce = posterAddress
      ? await deps.chain.readContract({ ...vault(deps), functionName: "nonces", args: [getAddress(posterAddress)] })
      : undefined;
    return c.json(
      {
        detected,
        costs,
        vault: vault(deps).address,
        terms: { ...t, subscriber: undefined, rewardPerRun: t.rewardPerRun.toString() },
        ...(nonce === undefined ? {} : { nonce: nonce.toString() }),
        limits,
      },
      200,
    );
  })
  .openapi(createSubRoute, async (c) => {
    const deps = c.get("deps");
    const { message, signature, ...body } = c.req.valid("json");
    const [now, { feeBps }] = await Promise.all([chainNow(deps), deps.params.fresh()]);
    const { cadence, detected, costs } = detect(body.instructions, body.rewardPerRun, now, feeBps);
    const signer = await verifySignedAction(
      deps,
      { message, signature },
      { action: "subscription-create", kind: "subscription", id: "new" },
    );
    if (!isAddressEqual(signer, body.posterAddress as Address)) {
      throw errors.forbidden("NOT_SUBSCRIPTION_POSTER", "the message must be signed by posterAddress");
    }
    const poster = getAddress(body.posterAddress);
    const reward = BigInt(body.rewardPerRun);
    const amount = BigInt(body.amount);
    checkStart(cadence, body.startsAt, now);
    // At least one run must be paid; costs.total pays them all. Fewer runs paid: EXHAUSTED until topped up.
    if (amount < BigInt(costs.totalPerRun)) {
      throw new ApiError(
        400,
        "PAYMENT_MISMATCH",
        `amount ${amount} pays no run; at least ${costs.totalPerRun} is needed`,
      );
    }
    const held = await usdcBalanceOf(deps, poster);
    if (held < amount)
      throw new ApiError(400, "INSUFFICIENT_FUNDS", `${poster} holds ${held} USDC base units, not ${amount}`);
    const v = vault(deps);
    const terms = termsOf(cadence, reward, poster, body.startsAt);
    const permit = await verifiedPermit(deps, {
      owner: poster,
      spender: v.address,
      value: amount,
      deadline: BigInt(body.permit.deadline),
      signature: body.permit.signature,
    });
    const nonce = await deps.chain.readContract({ ...v, functionName: "nonces", args: [poster] });
    const consentOk = await deps.chain
      .verifyTypedData({
        ...(subscribeTypedData({
          vault: v.address,
          chainId: deps.deployments.chainId,
          terms: { ...terms, rewardPerRun: reward },
          amount,
          nonce,
          deadline: BigInt(body.consent.deadline),
        }) as never as Parameters<typeof deps.chain.verifyTypedData>[0]),
        address: poster,
        signature: body.consent.signature as Hex,
      })
      .catch(() => false);
    if (!consentOk || BigInt(body.consent.deadline) < now) {
      throw new ApiError(
        400,
        "INVALID_CONSENT",
        `the consent is not ${poster}'s unexpired EIP-712 Subscribe signature of these terms and amount (vault nonce ${nonce})`,
      );
    }
    const result = await relayMapped(
      deps,
      "SubscriptionVault",
      v.abi,
      "openWithPermit",
      [
        { ...terms, rewardPerRun: reward },
        amount,
        BigInt(body.consent.deadline),
        body.consent.signature as Hex,
        BigInt(body.permit.deadline),
        permit.v,
        permit.r,
        permit.s,
      ],
      `subscription-open:${body.consent.signature.toLowerCase()}`,
      VAULT_REVERTS,
    );
    const opened = vaultEvent(deps, result.logs as never, "SubscriptionOpened");
    if (!opened) throw new Error(`transaction ${result.txHash} has no SubscriptionOpened`);
    const vaultId = opened.args.id as bigint;
    const startsAt = opened.args.startsAt as number;
    const hash = result.txHash.toLowerCase() as Hex;
    const id = await withTransaction(deps.pool, async (client) => {
      const r = await client.query<{ id: string }>(
        `insert into api.subscription (poster_address, instructions, task, cadence, interval_label, every_seconds,
           total_runs, reward_per_run, fee_per_run, balance_remaining, total_funded, status, starts_at, next_run_at,
           vault_id)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10, $11, $12, $12, $13) returning id`,
        [
          poster,
          body.instructions,
          cadence.task,
          cadence.cadence,
          cadence.interval,
          cadence.everySeconds,
          cadence.totalRuns,
          reward.toString(),
          feeOf(reward, feeBps).toString(),
          amount.toString(),
          "ACTIVE",
          String(startsAt),
          vaultId.toString(),
        ],
      );
      const id = Number(r.rows[0]!.id);
      await client.query(
        "insert into api.subscription_payment (tx_hash, subscription_id, kind, payer, amount) values ($1, $2, 'create', $3, $4)",
        [hash, id, poster, amount.toString()],
      );
      await client.query(
        "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, tx_hash) values ($1, 'fund', $2, $2, $3)",
        [id, amount.toString(), hash],
      );
      return id;
    }).catch((error) => {
      // A retried request gets the relayer's first transaction back: it opened the subscription recorded then.
      if ((error as { code?: string }).code === "23505") throw txAlreadyUsed(hash);
      throw error;
    });
    const row = await syncFromChain(deps, await findSubscription(deps, id));
    return c.json(
      {
        subscription: toSubscription(row),
        detected,
        costs,
        txHash: hash,
        credited: amount.toString(),
        message: `Subscription ${id} is ${row.status}: ${cadence.totalRuns === null ? "open-ended" : `${cadence.totalRuns} runs`}, ${cadence.cadence}, first run at ${iso(String(startsAt))}; ${amount} USDC base units escrowed in the SubscriptionVault (id ${vaultId}).`,
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
    const org = c.get("org");
    if (org) {
      // With an organization key: the subscriptions its agents' addresses (generated wallets, owners) post.
      params.push(org.id);
      where.push(`lower(poster_address) in ${orgAddresses(deps.views.names.agent, `$${params.length}`)}`);
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
    // The vault is the truth (the subscriber may have acted on it directly): refresh the mirror first.
    return c.json(toSubscription(await syncFromChain(deps, await findSubscription(deps, id))), 200);
  })
  .openapi(runsRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const q = c.req.valid("query");
    await findSubscription(deps, id);
    const { runs, total } = await subscriptionRuns(deps, id, { limit: q.limit, offset: (q.page - 1) * q.limit });
    return c.json({ subscriptionId: id, runs, total, page: q.page, limit: q.limit }, 200);
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
    const poster = getAddress(row.poster_address);
    const held = await usdcBalanceOf(deps, poster);
    if (held < amount)
      throw new ApiError(400, "INSUFFICIENT_FUNDS", `${poster} holds ${held} USDC base units, not ${amount}`);
    const v = vault(deps);
    const permit = await verifiedPermit(deps, {
      owner: poster,
      spender: v.address,
      value: amount,
      deadline: BigInt(body.permit.deadline),
      signature: body.permit.signature,
    });
    const result = await relayMapped(
      deps,
      "SubscriptionVault",
      v.abi,
      "topUpWithPermit",
      [BigInt(row.vault_id!), amount, BigInt(body.permit.deadline), permit.v, permit.r, permit.s],
      `subscription-topup:${body.permit.signature.toLowerCase()}`,
      VAULT_REVERTS,
    );
    const hash = result.txHash.toLowerCase();
    const funded = vaultEvent(deps, result.logs as never, "SubscriptionFunded");
    const balance = (funded?.args.balance as bigint | undefined) ?? 0n;
    try {
      await withTransaction(deps.pool, async (client) => {
        await client.query(
          "insert into api.subscription_payment (tx_hash, subscription_id, kind, payer, amount) values ($1, $2, 'topup', $3, $4)",
          [hash, id, poster, amount.toString()],
        );
        await client.query("update api.subscription set total_funded = total_funded + $2 where id = $1", [
          id,
          amount.toString(),
        ]);
        await client.query(
          "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, tx_hash) values ($1, 'topup', $2, $3, $4)",
          [id, amount.toString(), balance.toString(), hash],
        );
      });
    } catch (error) {
      if ((error as { code?: string }).code === "23505") throw txAlreadyUsed(hash);
      throw error;
    }
    await syncFromChain(deps, await findSubscription(deps, id));
    const subscription = await updated(deps, id);
    return c.json(
      {
        success: true,
        subscription,
        credited: amount.toString(),
        txHash: hash,
        message: `${amount} USDC base units added in the vault; balance ${subscription.balanceRemaining}, status ${subscription.status}.`,
      },
      200,
    );
  })
  .openapi(pauseRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await signedVaultAction(deps, id, body, "pause", ["ACTIVE", "EXHAUSTED"], "pauseSubscription");
    return c.json(
      {
        success: true,
        subscription: await updated(deps, id),
        txHash: result.txHash,
        message: `Subscription ${id} is PAUSED: the vault creates no runs.`,
      },
      200,
    );
  })
  .openapi(resumeRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const result = await signedVaultAction(deps, id, body, "resume", ["PAUSED"], "resumeSubscription");
    const subscription = await updated(deps, id);
    return c.json(
      {
        success: true,
        subscription,
        txHash: result.txHash,
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
    const body = c.req.valid("json");
    const allowed: SubscriptionStatus[] = ["ACTIVE", "PAUSED", "EXHAUSTED"];
    const row = await authorize(deps, id, body, "subscription-cancel");
    if (!allowed.includes(row.status)) throw wrongState(row, "cancel", allowed);
    const result = await relayMapped(
      deps,
      "SubscriptionVault",
      vault(deps).abi,
      "cancelSubscription",
      [BigInt(row.vault_id!)],
      `subscription-cancel:${body.signature.toLowerCase()}`,
      VAULT_REVERTS,
    );
    const cancelled = vaultEvent(deps, result.logs as never, "SubscriptionCancelled");
    const refund = (cancelled?.args.refund as bigint | undefined) ?? 0n;
    await withTransaction(deps.pool, async (client) => {
      await client.query("update api.subscription set refunded = refunded + $2 where id = $1", [id, refund.toString()]);
      await client.query(
        "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, tx_hash) values ($1, 'refund', $2, 0, $3)",
        [id, refund.toString(), result.txHash.toLowerCase()],
      );
    });
    await syncFromChain(deps, await findSubscription(deps, id));
    return c.json(
      {
        success: true,
        subscription: await updated(deps, id),
        refunded: refund.toString(),
        txHash: result.txHash,
        message: `Subscription ${id} is CANCELLED; the vault refunded ${refund} USDC base units to ${row.poster_address}. Runs already created are unaffected.`,
      },
      200,
    );
  });

/**
 * Pause or resume: the subscriber's signed request, allowed only from `allowed` states, relayed to the vault once per
 * signature; the mirror then takes the chain's state.
 */
async function signedVaultAction(
  deps: Deps,
  id: number,
  body: Parameters<typeof authorize>[2],
  action: "pause" | "resume",
  allowed: SubscriptionStatus[],
  functionName: "pauseSubscription" | "resumeSubscription",
) {
  const row = await authorize(deps, id, body, `subscription-${action}`);
  if (!allowed.includes(row.status)) throw wrongState(row, action, allowed);
  const result = await relayMapped(
    deps,
    "SubscriptionVault",
    vault(deps).abi,
    functionName,
    [BigInt(row.vault_id!)],
    `subscription-${action}:${body.signature.toLowerCase()}`,
    VAULT_REVERTS,
  );
  await syncFromChain(deps, await findSubscription(deps, id));
  return result;
}

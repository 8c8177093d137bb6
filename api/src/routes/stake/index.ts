// Agents' stake in the StakeVault: a deposit the wallet sent (recorded by hash, once), a gasless deposit by permit,
// and the stake's status. The rules are in use-cases/stake/.
import { createRoute, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit, LIMITS } from "../../lib/rate-limit.ts";
import { address, baseUnits, errorResponses, hexSignature, json, jsonBody, txHash } from "../../lib/schemas.ts";
import { getStake } from "../../use-cases/stake/get-stake.ts";
import { recordStake } from "../../use-cases/stake/record-stake.ts";
import { stakeWithPermit } from "../../use-cases/stake/stake-with-permit.ts";
import { withdrawStake } from "../../use-cases/stake/withdraw-stake.ts";
import { agentIdParam, agentStatus, stakeStatus } from "../agents/schemas.ts";

const stakeResult = z.object({
  success: z.boolean(),
  agentId: z.number(),
  stakedAmount: z.string(),
  stakedAt: z.string().nullable(),
  status: agentStatus,
  txHash: z.string(),
  message: z.string(),
});

const recordRoute = createRoute({
  method: "post",
  path: "/{id}/stake",
  tags: ["stake"],
  summary: "Record a confirmed StakeVault deposit (each transaction counts once)",
  request: { params: agentIdParam, body: jsonBody(z.object({ amount: baseUnits, txHash, walletAddress: address })) },
  responses: { 200: json(stakeResult, "Stake recorded"), ...errorResponses(400, 403, 404, 429) },
});

const gaslessRoute = createRoute({
  method: "post",
  path: "/{id}/stake/permit",
  tags: ["stake"],
  summary: "Gasless stake: the relayer submits StakeVault.depositWithPermit with the wallet's EIP-2612 permit",
  request: {
    params: agentIdParam,
    body: jsonBody(
      z.object({
        walletAddress: address,
        amount: baseUnits,
        deadline: z.number().int().positive().openapi({ description: "permit deadline, unix seconds" }),
        signature: hexSignature.openapi({ description: "EIP-2612 permit signature for spender = StakeVault" }),
      }),
    ),
  },
  responses: { 200: json(stakeResult, "Staked"), ...errorResponses(400, 403, 404, 429) },
});

const statusRoute = createRoute({
  method: "get",
  path: "/{id}/stake",
  tags: ["stake"],
  request: { params: agentIdParam },
  responses: { 200: json(stakeStatus, "Stake status"), ...errorResponses(404) },
});

const withdrawRoute = createRoute({
  method: "post",
  path: "/{id}/stake/withdraw",
  tags: ["stake"],
  summary:
    "Gasless stake withdrawal in two phases, signed by the identity token's owner and relayed: request (starts the " +
    "vault's cooldown, GET /api/config -> parameters.stakeWithdrawalCooldownSeconds; signed action " +
    "stake-withdraw-request) then complete (pays the token owner; signed action stake-withdraw)",
  description:
    "The requested amount stays slashable until paid and may not dip into what runs the agent holds lock " +
    "(409 STAKE_LOCKED); one withdrawal at a time (409 WITHDRAWAL_PENDING); complete before the cooldown ends is " +
    "409 WITHDRAWAL_NOT_READY, without a request 409 NO_PENDING_WITHDRAWAL.",
  request: {
    params: agentIdParam,
    body: jsonBody(
      z.object({
        phase: z.enum(["request", "complete"]),
        amount: baseUnits.optional().openapi({ description: "USDC base units (phase request)" }),
        message: z.string().min(1).max(4000),
        signature: hexSignature,
      }),
    ),
  },
  responses: {
    200: json(
      z.object({
        success: z.boolean(),
        agentId: z.number(),
        phase: z.enum(["requested", "withdrawn"]),
        amount: z.string(),
        availableAt: z.string().nullable(),
        paidTo: z.string().nullable(),
        txHash: z.string(),
        message: z.string(),
      }),
      "Withdrawal requested or paid",
    ),
    ...errorResponses(400, 401, 403, 404, 409, 429, 503, 504),
  },
});

export const stakeRoutes = router()
  .openapi(recordRoute, async (c) => {
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "stake", LIMITS.stake);
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(await recordStake(c.get("deps"), { agentId: id, ...body, txHash: body.txHash as Hex }), 200);
  })
  .openapi(gaslessRoute, async (c) => {
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "stake", LIMITS.stake);
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    return c.json(
      await stakeWithPermit(c.get("deps"), { agentId: id, ...body, signature: body.signature as Hex }),
      200,
    );
  })
  .openapi(withdrawRoute, async (c) => {
    await enforceRateLimit(c, "stake", LIMITS.stake);
    const { id } = c.req.valid("param");
    return c.json(await withdrawStake(c.get("deps"), { agentId: id, ...c.req.valid("json") }), 200);
  })
  .openapi(statusRoute, async (c) => c.json(await getStake(c.get("deps"), c.req.valid("param").id), 200));

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
  .openapi(statusRoute, async (c) => c.json(await getStake(c.get("deps"), c.req.valid("param").id), 200));

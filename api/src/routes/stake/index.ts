import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { createRoute, z } from "@hono/zod-openapi";
import { getAddress, type Hex } from "viem";
import type { Deps } from "../../context.ts";
import { activeStake, canClaimRuns } from "../../domain/agent-status.ts";
import { apiError } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { isAgentWalletOrOwner, verifyDepositTx } from "../../lib/deposit-tx.ts";
import { router } from "../../lib/openapi.ts";
import { verifiedPermit } from "../../lib/permit.ts";
import { enforceRateLimit, LIMITS } from "../../lib/rate-limit.ts";
import { address, baseUnits, errorResponses, hexSignature, json, jsonBody, txHash } from "../../lib/schemas.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import {
  type AgentRecord,
  findAgent,
  recordStakeTx,
  slashHistory,
  stakeEventsOfTx,
  statusOf,
} from "../../stores/agents.ts";
import { requireAgent } from "../../use-cases/guards.ts";
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

function assertStakeAllowed(
  agent: AgentRecord,
  { now, minStake }: { now: bigint; minStake: bigint },
  walletAddress: string,
  amount: bigint,
) {
  if (amount < minStake) {
    throw apiError("INSUFFICIENT_STAKE", `minimum stake is ${minStake} base units (the vault's minimum)`);
  }
  if (statusOf(agent, now, minStake) === "BANNED") {
    throw apiError("AGENT_BANNED", `agent ${agent.id} is banned`);
  }
  if (!isAgentWalletOrOwner(agent, walletAddress))
    throw apiError("WALLET_MISMATCH", "walletAddress is neither the agent's wallet nor its owner");
}

/** Verifies the receipt holds a Staked deposit for this agent from walletAddress, records the hash once, waits for the indexer. */
async function recordStake(deps: Deps, agent: AgentRecord, hash: Hex, walletAddress: string, amount: bigint) {
  const deposited = await verifyDepositTx(deps, {
    hash,
    abi: StakeVaultAbi,
    contract: deps.deployments.contracts.StakeVault.address,
    eventName: "Staked",
    agentId: agent.id,
    walletAddress,
    amount,
  });
  const recorded = await recordStakeTx(deps, {
    txHash: hash,
    agentId: agent.id,
    wallet: getAddress(walletAddress),
    amount: deposited,
  });
  if (!recorded) throw apiError("TX_ALREADY_USED", `transaction ${hash} was already recorded`);
  await waitForIndexer(
    `stake ${hash}`,
    async () => ((await stakeEventsOfTx(deps, hash)).n > 0 ? true : undefined),
    deps.env.INDEXER_WAIT_MS,
  );
}

async function stakeAnswer(deps: Deps, agentId: number, hash: string) {
  const agent = (await findAgent(deps, agentId))!;
  const [now, { minStake }] = await Promise.all([chainClock(deps).now(), deps.params.current()]);
  const status = statusOf(agent, now, minStake);
  return {
    success: true,
    agentId,
    stakedAmount: activeStake(agent.stake).toString(),
    stakedAt: agent.stakedAt === null ? null : isoFromSeconds(agent.stakedAt),
    status,
    txHash: hash,
    message:
      status === "PROVISIONAL" || status === "ESTABLISHED"
        ? "Stake recorded: the agent can claim runs."
        : `Stake recorded; status is ${status} (at least ${minStake} base units must be staked, and a slashed agent must stake again).`,
  };
}

async function loadAgent(deps: Deps, id: number) {
  const agent = await requireAgent(deps, id);
  const [now, { minStake }] = await Promise.all([chainClock(deps).now(), deps.params.current()]);
  return { agent, now, minStake };
}

export const stakeRoutes = router()
  .openapi(recordRoute, async (c) => {
    const deps = c.get("deps");
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "stake", LIMITS.stake);
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { agent, ...at } = await loadAgent(deps, id);
    assertStakeAllowed(agent, at, body.walletAddress, BigInt(body.amount));
    await recordStake(deps, agent, body.txHash as Hex, body.walletAddress, BigInt(body.amount));
    return c.json(await stakeAnswer(deps, id, body.txHash), 200);
  })
  .openapi(gaslessRoute, async (c) => {
    const deps = c.get("deps");
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "stake", LIMITS.stake);
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const amount = BigInt(body.amount);
    const { agent, ...at } = await loadAgent(deps, id);
    assertStakeAllowed(agent, at, body.walletAddress, amount);
    const { r, s, v } = await verifiedPermit(deps, {
      owner: body.walletAddress,
      spender: deps.deployments.contracts.StakeVault.address,
      value: amount,
      deadline: BigInt(body.deadline),
      signature: body.signature,
    });
    const relayed = await deps.relayer.call(
      "StakeVault",
      StakeVaultAbi,
      "depositWithPermit",
      [BigInt(id), getAddress(body.walletAddress), amount, BigInt(body.deadline), v, r, s],
      `stake-permit:${body.signature.toLowerCase()}`,
      { agentId: BigInt(id), account: getAddress(body.walletAddress) },
    );
    await recordStake(deps, agent, relayed.txHash, body.walletAddress, amount);
    return c.json(await stakeAnswer(deps, id, relayed.txHash), 200);
  })
  .openapi(statusRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { agent, now, minStake } = await loadAgent(deps, id);
    const status = statusOf(agent, now, minStake);
    const staked = activeStake(agent.stake);
    return c.json(
      {
        agentId: id,
        status,
        stakedAmount: staked.toString(),
        stakedAt: agent.stakedAt === null ? null : isoFromSeconds(agent.stakedAt),
        slashHistory: await slashHistory(deps, id),
        isStaked: staked >= minStake,
        canClaimRuns: canClaimRuns(status),
        minimumStake: minStake.toString(),
        pendingWithdrawal: (agent.stake?.pendingWithdrawal ?? 0n).toString(),
      },
      200,
    );
  });

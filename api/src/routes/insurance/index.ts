// Insurance: agents' USDC coverage in the InsurancePool. Stakes are gasless (EIP-2612 permit relayed through
// stakeWithPermit) or the wallet's own stake() transaction; withdrawals are signed by the agent's owner or wallet
// and relayed (request, then complete after the 14-day cooldown); a failed run's poster claims against the coverage.
import { InsurancePoolAbi } from "@agenthub/common/generated/abis";
import { createRoute } from "@hono/zod-openapi";
import { getAddress, type Hex, isAddressEqual } from "viem";
import { verifySignedAction } from "../../auth/signed-action.ts";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { isAgentWalletOrOwner, verifyDepositTx } from "../../lib/deposit-tx.ts";
import { eventArgs } from "../../lib/events.ts";
import { router } from "../../lib/openapi.ts";
import { verifiedPermit } from "../../lib/permit.ts";
import { enforceRateLimit, LIMITS } from "../../lib/rate-limit.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import {
  claimability,
  claimsOfRun,
  coverageOf,
  coverageSummary,
  hasCoverage,
  indexedInsuranceTx,
  pendingWithdrawal,
  recordInsuranceStake,
  stakeEntries,
} from "../../stores/insurance.ts";
import { requireAgent } from "../../use-cases/guards.ts";
import { chainNow } from "../../use-cases/runs/escrow.ts";
import { getRun } from "../../use-cases/runs/get-run.ts";
import {
  agentIdParam,
  agentStakes,
  agentTokenIdParam,
  bountyClaims,
  bountyIdParam,
  claimBody,
  claimResult,
  coverageQuery,
  coverageResult,
  coverageSummary as coverageSummarySchema,
  pageQuery,
  stakeBody,
  stakeResult,
  withdrawBody,
  withdrawResult,
} from "./schemas.ts";

const TAG = ["insurance"];

/** InsurancePool reverts the API's checks did not foresee (races) -> stable codes. */
const REVERTS: RevertCodes = {
  InsurancePoolZeroAmount: "INVALID_AMOUNT",
  InsurancePoolWithdrawalPending: "WITHDRAWAL_PENDING",
  InsurancePoolNoWithdrawal: "NO_PENDING_WITHDRAWAL",
  InsurancePoolCooldownActive: "WITHDRAWAL_NOT_READY",
  InsurancePoolAgentHoldsRuns: "COVERAGE_LOCKED",
  InsurancePoolClaimWindowOpen: "COVERAGE_LOCKED",
  InsurancePoolInsufficientCoverage: "INSUFFICIENT_COVERAGE",
  InsurancePoolAlreadyClaimed: "ALREADY_CLAIMED",
  InsurancePoolNoCoverage: "NO_COVERAGE",
  InsurancePoolNoFailure: "NO_FAILED_AGENT",
  InsurancePoolLossNotVerified: "LOSS_NOT_VERIFIED",
  InsurancePoolNoLoss: "NO_INSURED_LOSS",
  InsurancePoolNoCoverDeclared: "NO_COVER_DECLARED",
  ERC20InsufficientAllowance: "INVALID_PERMIT",
  ERC20InsufficientBalance: "INSUFFICIENT_BALANCE",
};

const stakeRoute = createRoute({
  method: "post",
  path: "/stake",
  tags: TAG,
  summary:
    "Stake USDC as coverage for an agent: gasless (signature + deadline: EIP-2612 permit for spender = InsurancePool, " +
    "relayed through stakeWithPermit) or record the wallet's own InsurancePool.stake transaction (txHash, once)",
  request: { body: jsonBody(stakeBody) },
  responses: { 200: json(stakeResult, "Staked"), ...errorResponses(400, 403, 404, 409, 429, 503, 504) },
});

const withdrawRoute = createRoute({
  method: "post",
  path: "/withdraw",
  tags: TAG,
  summary:
    "Withdraw coverage in two phases: request (starts the 14-day cooldown; signed action insurance-withdraw-request) " +
    "then complete (pays the identity token owner; signed action insurance-withdraw); signer = agent owner or wallet",
  request: { body: jsonBody(withdrawBody) },
  responses: { 200: json(withdrawResult, "Withdrawal requested or paid"), ...errorResponses(400, 401, 403, 404, 409) },
});

const coverageRoute = createRoute({
  method: "get",
  path: "/coverage/{agentTokenId}",
  tags: TAG,
  summary: "Whether the agent's coverage not pending withdrawal is at least requiredAmount (InsurancePool.hasCoverage)",
  request: { params: agentTokenIdParam, query: coverageQuery },
  responses: { 200: json(coverageResult, "Coverage"), ...errorResponses(400, 404) },
});

const stakeStatusRoute = createRoute({
  method: "get",
  path: "/stake/{agentTokenId}",
  tags: TAG,
  summary: "The agent's coverage, pending withdrawal and cooldown (read from the contract)",
  request: { params: agentTokenIdParam },
  responses: { 200: json(coverageSummarySchema, "Stake"), ...errorResponses(400, 404) },
});

const agentStakesRoute = createRoute({
  method: "get",
  path: "/agent/{agentId}/stakes",
  tags: TAG,
  summary: "The agent's coverage and its stake deposits, newest first",
  request: { params: agentIdParam, query: pageQuery },
  responses: { 200: json(agentStakes, "Stakes"), ...errorResponses(400, 404) },
});

const claimsRoute = createRoute({
  method: "get",
  path: "/bounty/{bountyId}/claims",
  tags: TAG,
  summary: "Insurance claims paid for a run (bountyId of the runs API)",
  request: { params: bountyIdParam },
  responses: { 200: json(bountyClaims, "Claims"), ...errorResponses(400, 404) },
});

const claimRoute = createRoute({
  method: "post",
  path: "/bounty/{bountyId}/claims",
  tags: TAG,
  summary:
    "The run's poster claims against the failed agent's coverage (signed action insurance-claim:run:<bountyId>). " +
    "Only a verified loss of a run with a declared cover pays (the agent timed out or lost a dispute; a rejection: " +
    "409 LOSS_NOT_VERIFIED; no cover: 409 NO_COVER_DECLARED): the escrow's refund is the poster's own deposit, " +
    "insurance pays the agreed damages, once per run: min(cover - stake already slashed to the poster, coverage)",
  request: { params: bountyIdParam, body: jsonBody(claimBody) },
  responses: { 200: json(claimResult, "Claim paid"), ...errorResponses(400, 401, 403, 404, 409) },
});

function refusalMessage(state: Awaited<ReturnType<typeof claimability>>, bountyId: number): string {
  switch (state.refusal) {
    case "NO_FAILED_AGENT":
      return `no agent has failed run ${bountyId}`;
    case "LOSS_NOT_VERIFIED":
      return `agent ${state.failedAgentId} was rejected on run ${bountyId}: a rejection is the poster's own call and the escrow refunded reward + fee in full; insurance pays only timeouts and lost disputes`;
    case "ALREADY_CLAIMED":
      return `run ${bountyId} was already paid by insurance (one payout per run)`;
    case "NO_COVER_DECLARED":
      return `run ${bountyId}'s poster declared no cover: the escrow refunded the deposit, and insurance pays only agreed damages declared before the work started`;
    case "NO_INSURED_LOSS":
      return `the stake slashed to the poster already paid run ${bountyId}'s declared cover`;
    default:
      return `agent ${state.failedAgentId} has no insurance coverage`;
  }
}

function positiveAmount(value: string): bigint {
  const amount = BigInt(value);
  if (amount === 0n) throw apiError("INVALID_AMOUNT", "amountUsdc must be greater than 0");
  return amount;
}

async function waitForInsuranceTx(deps: Deps, hash: string, kind: string) {
  await waitForIndexer(`insurance ${hash}`, () => indexedInsuranceTx(deps, hash, kind), deps.env.INDEXER_WAIT_MS);
}

export const insuranceRoutes = router()
  .openapi(stakeRoute, async (c) => {
    const deps = c.get("deps");
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "stake", LIMITS.stake);
    const body = c.req.valid("json");
    const amount = positiveAmount(body.amountUsdc);
    const agent = await requireAgent(deps, body.agentTokenId);
    if (!isAgentWalletOrOwner(agent, body.walletAddress))
      throw apiError("WALLET_MISMATCH", "walletAddress is neither the agent's wallet nor its owner");
    const wallet = getAddress(body.walletAddress);
    let hash: Hex;
    let mode: "PERMIT" | "TX";
    if (body.txHash) {
      hash = body.txHash as Hex;
      mode = "TX";
      await verifyDepositTx(deps, {
        hash,
        abi: InsurancePoolAbi,
        contract: deps.deployments.contracts.InsurancePool.address,
        eventName: "CoverageStaked",
        agentId: agent.id,
        walletAddress: wallet,
        amount,
      });
    } else {
      const { r, s, v } = await verifiedPermit(deps, {
        owner: wallet,
        spender: deps.deployments.contracts.InsurancePool.address,
        value: amount,
        deadline: BigInt(body.deadline!),
        signature: body.signature!,
      });
      const relayed = await relayMapped(
        deps,
        "InsurancePool",
        InsurancePoolAbi,
        "stakeWithPermit",
        [BigInt(agent.id), wallet, amount, BigInt(body.deadline!), v, r, s],
        `insurance-stake-permit:${body.signature!.toLowerCase()}`,
        REVERTS,
        { agentId: BigInt(agent.id), account: wallet },
      );
      hash = relayed.txHash;
      mode = "PERMIT";
    }
    if (!(await recordInsuranceStake(deps, { txHash: hash, agentId: agent.id, wallet, amount, mode })))
      throw apiError("TX_ALREADY_USED", `transaction ${hash} was already recorded`);
    await waitForInsuranceTx(deps, hash, "STAKED");
    const stake = await coverageSummary(deps, agent.id);
    return c.json(
      {
        success: true,
        agentTokenId: agent.id,
        amountUsdc: amount.toString(),
        stakedBy: wallet,
        txHash: hash,
        stake,
        message: `Staked ${amount} USDC base units; agent ${agent.id} now has ${stake.availableCoverage} available coverage.`,
      },
      200,
    );
  })
  .openapi(withdrawRoute, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    const id = body.agentTokenId;
    const amount = body.phase === "request" ? positiveAmount(body.amountUsdc!) : 0n;
    const agent = await requireAgent(deps, id);
    const action = body.phase === "request" ? "insurance-withdraw-request" : "insurance-withdraw";
    const signer = await verifySignedAction(deps, body, { action, kind: "agent", id });
    if (!isAgentWalletOrOwner(agent, signer))
      throw apiError("NOT_AGENT_OWNER", `only agent ${id}'s owner or wallet may withdraw its coverage`);
    const pending = await pendingWithdrawal(deps, id);

    if (body.phase === "request") {
      if (pending.amount > 0n)
        throw apiError(
          "WITHDRAWAL_PENDING",
          `a withdrawal of ${pending.amount} is already pending (available at ${isoFromSeconds(pending.availableAt)})`,
        );
      const coverage = await coverageOf(deps, id);
      if (amount > coverage)
        throw apiError("INSUFFICIENT_COVERAGE", `agent ${id} has ${coverage} coverage, less than ${amount}`);
      const relayed = await relayMapped(
        deps,
        "InsurancePool",
        InsurancePoolAbi,
        "requestWithdrawal",
        [BigInt(id), amount],
        `insurance-withdraw-request:${body.signature.toLowerCase()}`,
        REVERTS,
        { agentId: BigInt(id) },
      );
      const [requested] = eventArgs<{ availableAt: bigint }>(
        InsurancePoolAbi,
        relayed.logs,
        "CoverageWithdrawalRequested",
      );
      await waitForInsuranceTx(deps, relayed.txHash, "WITHDRAWAL_REQUESTED");
      const availableAt = isoFromSeconds(BigInt(requested!.availableAt));
      return c.json(
        {
          success: true,
          agentTokenId: id,
          phase: "requested" as const,
          amountUsdc: amount.toString(),
          availableAt,
          paidTo: null,
          txHash: relayed.txHash,
          stake: await coverageSummary(deps, id),
          message: `Withdrawal of ${amount} requested; complete it from ${availableAt}. The amount stays claimable until paid.`,
        },
        200,
      );
    }

    if (pending.amount === 0n)
      throw apiError("NO_PENDING_WITHDRAWAL", `agent ${id} has no pending withdrawal; request one first`);
    const now = await chainNow(deps);
    if (now < pending.availableAt)
      throw apiError(
        "WITHDRAWAL_NOT_READY",
        `the cooldown ends at ${isoFromSeconds(pending.availableAt)} (chain time is ${isoFromSeconds(now)})`,
      );
    const relayed = await relayMapped(
      deps,
      "InsurancePool",
      InsurancePoolAbi,
      "withdraw",
      [BigInt(id)],
      `insurance-withdraw:${body.signature.toLowerCase()}`,
      REVERTS,
      { agentId: BigInt(id) },
    );
    const [paid] = eventArgs<{ to: string; amount: bigint }>(InsurancePoolAbi, relayed.logs, "CoverageWithdrawn");
    await waitForInsuranceTx(deps, relayed.txHash, "WITHDRAWN");
    return c.json(
      {
        success: true,
        agentTokenId: id,
        phase: "withdrawn" as const,
        amountUsdc: paid!.amount.toString(),
        availableAt: null,
        paidTo: getAddress(paid!.to),
        txHash: relayed.txHash,
        stake: await coverageSummary(deps, id),
        message: `Withdrew ${paid!.amount} USDC base units to the agent's owner ${getAddress(paid!.to)}.`,
      },
      200,
    );
  })
  .openapi(coverageRoute, async (c) => {
    const deps = c.get("deps");
    const { agentTokenId } = c.req.valid("param");
    const { requiredAmount } = c.req.valid("query");
    await requireAgent(deps, agentTokenId);
    const [covered, summary] = await Promise.all([
      hasCoverage(deps, agentTokenId, BigInt(requiredAmount)),
      coverageSummary(deps, agentTokenId),
    ]);
    return c.json(
      {
        agentTokenId,
        requiredAmount: BigInt(requiredAmount).toString(),
        hasCoverage: covered,
        availableCoverage: summary.availableCoverage,
      },
      200,
    );
  })
  .openapi(stakeStatusRoute, async (c) => {
    const deps = c.get("deps");
    const { agentTokenId } = c.req.valid("param");
    await requireAgent(deps, agentTokenId);
    return c.json(await coverageSummary(deps, agentTokenId), 200);
  })
  .openapi(agentStakesRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId } = c.req.valid("param");
    const { limit, offset } = c.req.valid("query");
    await requireAgent(deps, agentId);
    const [stake, entries] = await Promise.all([
      coverageSummary(deps, agentId),
      stakeEntries(deps, agentId, limit, offset),
    ]);
    return c.json({ agentId, stake, ...entries, limit, offset }, 200);
  })
  .openapi(claimsRoute, async (c) => {
    const deps = c.get("deps");
    const { bountyId } = c.req.valid("param");
    const run = await getRun(deps, bountyId);
    if (run.onchainRunId === null) {
      return c.json(
        {
          bountyId,
          onchainRunId: null,
          failedAgentId: null,
          failureKind: null,
          cover: "0",
          insuredLoss: "0",
          claimable: false,
          refusal: "NO_FAILED_AGENT",
          claims: [],
        },
        200,
      );
    }
    const runId = run.onchainRunId;
    const [state, paid] = await Promise.all([claimability(deps, runId), claimsOfRun(deps, runId)]);
    return c.json(
      {
        bountyId,
        onchainRunId: runId.toString(),
        failedAgentId: state.failedAgentId === 0n ? null : Number(state.failedAgentId),
        failureKind: state.failureKind,
        cover: state.cover.toString(),
        insuredLoss: state.insuredLoss.toString(),
        claimable: state.refusal === null,
        refusal: state.refusal,
        claims: paid.map((cl) => ({ bountyId, onchainRunId: runId.toString(), ...cl })),
      },
      200,
    );
  })
  .openapi(claimRoute, async (c) => {
    const deps = c.get("deps");
    const { bountyId } = c.req.valid("param");
    const body = c.req.valid("json");
    const run = await getRun(deps, bountyId);
    const signer = await verifySignedAction(deps, body, { action: "insurance-claim", kind: "run", id: bountyId });
    if (!isAddressEqual(signer, run.poster as Hex))
      throw apiError("NOT_RUN_POSTER", `only the run's poster ${run.poster} may claim`);
    if (run.onchainRunId === null)
      throw apiError("NO_FAILED_AGENT", `run ${bountyId} was never funded, so no agent failed it`);
    const runId = run.onchainRunId;
    const state = await claimability(deps, runId);
    const failed = state.failedAgentId;
    if (state.refusal !== null) throw apiError(state.refusal, refusalMessage(state, bountyId));
    const relayed = await relayMapped(
      deps,
      "InsurancePool",
      InsurancePoolAbi,
      "claim",
      [runId],
      `insurance-claim:${runId}`,
      REVERTS,
    );
    await waitForInsuranceTx(deps, relayed.txHash, "CLAIM_PAID");
    const [paid] = await claimsOfRun(deps, runId, relayed.txHash);
    return c.json(
      {
        success: true,
        claim: { bountyId, onchainRunId: runId.toString(), ...paid! },
        txHash: relayed.txHash,
        message: `Paid ${paid!.amountUsdc} USDC base units from agent ${failed}'s coverage to the poster.`,
      },
      200,
    );
  });

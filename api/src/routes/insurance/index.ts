// Insurance: agents' USDC coverage in the InsurancePool. Stakes are gasless (EIP-2612 permit relayed through
// stakeWithPermit) or the wallet's own stake() transaction; withdrawals are signed by the agent's owner or wallet
// and relayed (request, then complete after the 14-day cooldown); a failed run's poster claims against the coverage.
// The rules are in use-cases/insurance/.
import { createRoute } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit, LIMITS } from "../../lib/rate-limit.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { checkCoverage } from "../../use-cases/insurance/check-coverage.ts";
import { claimInsurance } from "../../use-cases/insurance/claim-insurance.ts";
import { getCoverage } from "../../use-cases/insurance/get-coverage.ts";
import { listStakes } from "../../use-cases/insurance/list-stakes.ts";
import { runClaims } from "../../use-cases/insurance/run-claims.ts";
import { stakeCoverage } from "../../use-cases/insurance/stake-coverage.ts";
import { withdrawCoverage } from "../../use-cases/insurance/withdraw-coverage.ts";
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
  coverageSummary,
  pageQuery,
  stakeBody,
  stakeResult,
  withdrawBody,
  withdrawResult,
} from "./schemas.ts";

const TAG = ["insurance"];

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
  responses: { 200: json(coverageSummary, "Stake"), ...errorResponses(400, 404) },
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

export const insuranceRoutes = router()
  .openapi(stakeRoute, async (c) => {
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "stake", LIMITS.stake);
    return c.json(await stakeCoverage(c.get("deps"), c.req.valid("json")), 200);
  })
  .openapi(withdrawRoute, async (c) => c.json(await withdrawCoverage(c.get("deps"), c.req.valid("json")), 200))
  .openapi(coverageRoute, async (c) => {
    const { agentTokenId } = c.req.valid("param");
    const { requiredAmount } = c.req.valid("query");
    return c.json(await checkCoverage(c.get("deps"), { agentTokenId, requiredAmount }), 200);
  })
  .openapi(stakeStatusRoute, async (c) => c.json(await getCoverage(c.get("deps"), c.req.valid("param")), 200))
  .openapi(agentStakesRoute, async (c) => {
    const { agentId } = c.req.valid("param");
    return c.json(await listStakes(c.get("deps"), { agentId, ...c.req.valid("query") }), 200);
  })
  .openapi(claimsRoute, async (c) => c.json(await runClaims(c.get("deps"), c.req.valid("param")), 200))
  .openapi(claimRoute, async (c) => {
    const { bountyId } = c.req.valid("param");
    return c.json(await claimInsurance(c.get("deps"), { bountyId, ...c.req.valid("json") }), 200);
  });

// Governance API (/api/advanced/governance): reads of proposals, voting power and the treasury, gasless votes
// (the voter's EIP-712 ballot relayed through castVoteBySig), and proposals the proposer submits itself (the
// Governor makes msg.sender the proposer) and then records here with its transaction hash. The rules are in
// use-cases/governance. Writes need `Authorization: Bearer <ACCESS_TOKEN>` from POST /api/auth/token (SIWE sign-in).
import { createRoute } from "@hono/zod-openapi";
import { getAddress } from "viem";
import { requireAccessToken } from "../../auth/access-token.ts";
import { ACCESS_TOKEN } from "../../auth/security-schemes.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { cancelProposal } from "../../use-cases/governance/cancel-proposal.ts";
import { treasury, votingPower } from "../../use-cases/governance/holdings.ts";
import { getProposal, listProposals } from "../../use-cases/governance/proposals.ts";
import { propose } from "../../use-cases/governance/propose.ts";
import { vote } from "../../use-cases/governance/vote.ts";
import {
  addressParam,
  cancelBody,
  listQuery,
  preparedCancel,
  preparedProposal,
  proposal,
  proposalCanceled,
  proposalCreated,
  proposalIdParam,
  proposalList,
  proposeBody,
  treasuryResult,
  voteBody,
  voteResult,
  votingPower as votingPowerSchema,
} from "./schemas.ts";

const TAG = ["governance"];
const bearerNote = " Needs Authorization: Bearer <ACCESS_TOKEN> (POST /api/auth/token).";

const listRoute = createRoute({
  method: "get",
  path: "/proposals",
  tags: TAG,
  summary: "Proposals, newest first; status filters by the Governor's state (lowercase state name)",
  request: { query: listQuery },
  responses: { 200: json(proposalList, "Proposals"), ...errorResponses(400) },
});

const getRoute = createRoute({
  method: "get",
  path: "/proposals/{proposalId}",
  tags: TAG,
  summary: "One proposal; status, tallies and eta read from the Governor",
  request: { params: proposalIdParam },
  responses: { 200: json(proposal, "Proposal"), ...errorResponses(400, 404, 504) },
});

const proposeRoute = createRoute({
  security: ACCESS_TOKEN,
  method: "post",
  path: "/proposals",
  tags: TAG,
  summary:
    "Without txHash: check a proposal (threshold, duplicates) and answer the propose() transaction to send from the " +
    "bearer's address. With txHash: verify that mined transaction created exactly this proposal by the bearer and " +
    `answer the indexed proposal.${bearerNote}`,
  request: { body: jsonBody(proposeBody) },
  responses: {
    200: json(preparedProposal, "Checked; send this transaction"),
    201: json(proposalCreated, "Proposal recorded"),
    ...errorResponses(400, 401, 403, 409, 504),
  },
});

const cancelRoute = createRoute({
  security: ACCESS_TOKEN,
  method: "post",
  path: "/proposals/{proposalId}/cancel",
  tags: TAG,
  summary:
    "The proposer cancels a pending proposal. Without txHash: check that the bearer is the proposer and the proposal " +
    "is pending, and answer the Governor's cancel() transaction to send from that address. With txHash: verify " +
    `that mined transaction canceled this proposal and answer it (canceled).${bearerNote}`,
  request: { params: proposalIdParam, body: jsonBody(cancelBody) },
  responses: {
    200: json(preparedCancel.or(proposalCanceled), "Checked (send this transaction), or canceled"),
    ...errorResponses(400, 401, 403, 404, 409, 504),
  },
});

const voteRoute = createRoute({
  security: ACCESS_TOKEN,
  method: "post",
  path: "/proposals/{proposalId}/vote",
  tags: TAG,
  summary: `Gasless vote: the relayer submits the voter's EIP-712 ballot (castVoteBySig).${bearerNote}`,
  request: { params: proposalIdParam, body: jsonBody(voteBody) },
  responses: { 200: json(voteResult, "Vote cast"), ...errorResponses(400, 401, 403, 404, 409, 504) },
});

const powerRoute = createRoute({
  method: "get",
  path: "/voting-power/{address}",
  tags: TAG,
  summary: "Token balance, current votes, delegation and ballot nonce of an address",
  request: { params: addressParam },
  responses: { 200: json(votingPowerSchema, "Voting power"), ...errorResponses(400) },
});

const treasuryRoute = createRoute({
  method: "get",
  path: "/treasury",
  tags: TAG,
  summary: "Balances of the timelock (the treasury): USDC, the governance token and ETH, in base units",
  responses: { 200: json(treasuryResult, "Treasury") },
});

export const governanceRoutes = router()
  .openapi(listRoute, async (c) => {
    const query = c.req.valid("query");
    const { proposals, total } = await listProposals(c.get("deps"), query);
    return c.json({ proposals, total, limit: query.limit, offset: query.offset }, 200);
  })
  .openapi(getRoute, async (c) => {
    return c.json(await getProposal(c.get("deps"), BigInt(c.req.valid("param").proposalId)), 200);
  })
  .openapi(proposeRoute, async (c) => {
    const proposer = await requireAccessToken(c);
    const r = await propose(c.get("deps"), { ...c.req.valid("json"), proposer });
    if (r.kind === "prepared") {
      return c.json(
        {
          proposalId: r.proposalId.toString(),
          descriptionHash: r.descriptionHash,
          proposer,
          votingPower: r.votes.toString(),
          proposalThreshold: r.threshold.toString(),
          transaction: { ...r.transaction, value: "0" },
          message: "Send this transaction from the proposer's address, then POST the same body with its txHash.",
        },
        200,
      );
    }
    return c.json(
      {
        success: true,
        proposal: r.proposal,
        txHash: r.txHash,
        message: `Proposal ${r.proposal.id} is ${r.proposal.status}; voting opens at ${r.proposal.voteStart}.`,
      },
      201,
    );
  })
  .openapi(cancelRoute, async (c) => {
    const bearer = await requireAccessToken(c);
    const id = BigInt(c.req.valid("param").proposalId);
    const r = await cancelProposal(c.get("deps"), { id, bearer, txHash: c.req.valid("json").txHash });
    const p = r.proposal;
    if (r.kind === "prepared") {
      return c.json(
        {
          proposalId: id.toString(),
          proposer: p.proposer,
          status: p.status,
          transaction: { ...r.transaction, value: "0" },
          message: `Send this transaction from ${p.proposer} before voting opens (${p.voteStart}), then POST again with its txHash.`,
        },
        200,
      );
    }
    return c.json({ success: true, proposal: p, txHash: r.txHash, message: `Proposal ${id} is ${p.status}.` }, 200);
  })
  .openapi(voteRoute, async (c) => {
    const voter = await requireAccessToken(c);
    const id = BigInt(c.req.valid("param").proposalId);
    const body = c.req.valid("json");
    const r = await vote(c.get("deps"), { ...body, id, voter, claimedVoter: body.voter });
    const label = ["against", "for", "abstain"][body.support];
    return c.json(
      {
        success: true,
        proposalId: id.toString(),
        voter,
        support: body.support,
        weight: r.weight.toString(),
        reason: body.reason ?? "",
        txHash: r.txHash,
        proposal: r.proposal,
        message: `Voted ${label} with ${r.weight} votes; the relayer paid the gas.`,
      },
      200,
    );
  })
  .openapi(powerRoute, async (c) => {
    return c.json(await votingPower(c.get("deps"), getAddress(c.req.valid("param").address)), 200);
  })
  .openapi(treasuryRoute, async (c) => c.json(await treasury(c.get("deps")), 200));

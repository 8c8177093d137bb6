// Governance API (/api/advanced/governance): reads of proposals, voting power and the treasury, gasless votes
// (the voter's EIP-712 ballot relayed through castVoteBySig), and proposals the proposer submits itself (the
// Governor makes msg.sender the proposer) and then records here with its transaction hash.
// Writes need `Authorization: Bearer <ACCESS_TOKEN>` from POST /api/auth/token (SIWE sign-in).

import { ballotTypedData } from "@agenthub/sdk/protocol";
import { createRoute } from "@hono/zod-openapi";
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  parseEventLogs,
  toBytes,
} from "viem";
import type { Deps } from "../../context.ts";
import { ApiError, errors } from "../../errors.ts";
import { requireAccessToken } from "../../lib/access-token.ts";
import { router } from "../../lib/openapi.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { getProposal, governor, listProposals, PROPOSAL_STATES, treasury, votingPower } from "./repository.ts";
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

const VOTE_REVERTS: RevertCodes = {
  GovernorAlreadyCastVote: { status: 409, code: "ALREADY_VOTED" },
  GovernorUnexpectedProposalState: { status: 409, code: "PROPOSAL_NOT_ACTIVE" },
  GovernorInvalidSignature: { status: 400, code: "INVALID_BALLOT_SIGNATURE" },
  InvalidAccountNonce: { status: 400, code: "INVALID_BALLOT_SIGNATURE" },
};

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

async function proposerVotes(deps: Deps, who: Address, timepoint: bigint) {
  const [votes, threshold] = await Promise.all([
    deps.chain.readContract({ ...governor(deps), functionName: "getVotes", args: [who, timepoint] }),
    deps.chain.readContract({ ...governor(deps), functionName: "proposalThreshold" }),
  ]);
  return { votes, threshold };
}

function insufficient(who: Address, votes: bigint, threshold: bigint): ApiError {
  return errors.forbidden(
    "INSUFFICIENT_VOTING_POWER",
    `${who} has ${votes} delegated votes; proposing needs ${threshold} (delegate tokens to yourself first)`,
  );
}

export const governanceRoutes = router()
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const query = c.req.valid("query");
    if (query.status === "expired") {
      throw new ApiError(
        400,
        "UNSUPPORTED_STATUS_FILTER",
        "no proposal is ever expired here: OpenZeppelin 5's GovernorTimelockControl has no grace period (a " +
          "TimelockController operation does not expire), so a queued proposal stays queued until executed or canceled",
      );
    }
    const { proposals, total } = await listProposals(deps, query);
    return c.json({ proposals, total, limit: query.limit, offset: query.offset }, 200);
  })
  .openapi(getRoute, async (c) => {
    const deps = c.get("deps");
    const { proposalId } = c.req.valid("param");
    return c.json(await getProposal(deps, BigInt(proposalId)), 200);
  })
  .openapi(proposeRoute, async (c) => {
    const deps = c.get("deps");
    const proposer = await requireAccessToken(c);
    const body = c.req.valid("json");
    const targets = body.targets.map((t) => getAddress(t));
    const values = body.values.map((v) => BigInt(v));
    const calldatas = body.calldatas as Hex[];
    const descriptionHash = keccak256(toBytes(body.description));
    const proposalId = await deps.chain.readContract({
      ...governor(deps),
      functionName: "hashProposal",
      args: [targets, values, calldatas, descriptionHash],
    });

    if (!body.txHash) {
      const now = (await deps.chain.getBlock({ blockTag: "latest" })).timestamp;
      const { votes, threshold } = await proposerVotes(deps, proposer, now - 1n);
      if (votes < threshold) throw insufficient(proposer, votes, threshold);
      const snapshot = await deps.chain.readContract({
        ...governor(deps),
        functionName: "proposalSnapshot",
        args: [proposalId],
      });
      if (snapshot !== 0n)
        throw errors.conflict("PROPOSAL_EXISTS", `proposal ${proposalId} already exists (change the description)`);
      const data = encodeFunctionData({
        abi: governor(deps).abi,
        functionName: "propose",
        args: [targets, values, calldatas, body.description],
      });
      return c.json(
        {
          proposalId: proposalId.toString(),
          descriptionHash,
          proposer,
          votingPower: votes.toString(),
          proposalThreshold: threshold.toString(),
          transaction: { to: governor(deps).address, data, value: "0" },
          message: "Send this transaction from the proposer's address, then POST the same body with its txHash.",
        },
        200,
      );
    }

    const hash = body.txHash as Hex;
    const receipt = await deps.chain.getTransactionReceipt({ hash }).catch(() => undefined);
    if (!receipt) throw new ApiError(400, "TX_NOT_FOUND", `no confirmed transaction ${hash}`);
    if (receipt.status !== "success") {
      // The Governor's own rule: the proposer's votes one second before the block.
      const block = await deps.chain.getBlock({ blockNumber: receipt.blockNumber });
      const { votes, threshold } = await proposerVotes(deps, receipt.from, block.timestamp - 1n);
      if (votes < threshold) throw insufficient(receipt.from, votes, threshold);
      throw new ApiError(400, "TX_FAILED", `transaction ${hash} reverted`);
    }
    const created = parseEventLogs({
      abi: governor(deps).abi,
      logs: receipt.logs,
      eventName: "ProposalCreated",
    }).filter((l) => isAddressEqual(l.address, governor(deps).address) && l.args.proposalId === proposalId);
    if (created.length === 0)
      throw new ApiError(400, "PROPOSAL_MISMATCH", `transaction ${hash} did not create the proposal in the body`);
    if (!isAddressEqual(created[0]!.args.proposer, proposer))
      throw errors.forbidden("PROPOSER_MISMATCH", "the proposal was made by another address than the access token's");
    const inserted = await deps.pool.query(
      `insert into api.governance_proposal_record (proposal_id, tx_hash, proposer) values ($1, $2, $3)
       on conflict do nothing`,
      [proposalId.toString(), hash.toLowerCase(), proposer],
    );
    if (inserted.rowCount !== 1)
      throw new ApiError(400, "TX_ALREADY_USED", `proposal ${proposalId} (transaction ${hash}) was already recorded`);
    const recorded = await getProposal(deps, proposalId);
    return c.json(
      {
        success: true,
        proposal: recorded,
        txHash: hash,
        message: `Proposal ${proposalId} is ${recorded.status}; voting opens at ${recorded.voteStart}.`,
      },
      201,
    );
  })
  .openapi(cancelRoute, async (c) => {
    const deps = c.get("deps");
    const bearer = await requireAccessToken(c);
    const id = BigInt(c.req.valid("param").proposalId);
    const body = c.req.valid("json");
    const g = governor(deps);
    const current = await getProposal(deps, id);
    if (!isAddressEqual(current.proposer as Address, bearer))
      throw errors.forbidden("NOT_PROPOSER", `only the proposer ${current.proposer} may cancel proposal ${id}`);

    if (!body.txHash) {
      // OpenZeppelin 5: the proposer may cancel only while the proposal is pending (before voting opens).
      if (current.status !== "pending")
        throw errors.conflict(
          "PROPOSAL_NOT_PENDING",
          `proposal ${id} is ${current.status}; only a pending one can be canceled`,
        );
      const data = encodeFunctionData({
        abi: g.abi,
        functionName: "cancel",
        args: [
          current.targets.map((t) => getAddress(t)),
          current.values.map((v) => BigInt(v)),
          current.calldatas as Hex[],
          keccak256(toBytes(current.description)),
        ],
      });
      return c.json(
        {
          proposalId: id.toString(),
          proposer: current.proposer,
          status: current.status,
          transaction: { to: g.address, data, value: "0" },
          message: `Send this transaction from ${current.proposer} before voting opens (${current.voteStart}), then POST again with its txHash.`,
        },
        200,
      );
    }

    const hash = body.txHash as Hex;
    const receipt = await deps.chain.getTransactionReceipt({ hash }).catch(() => undefined);
    if (!receipt) throw new ApiError(400, "TX_NOT_FOUND", `no confirmed transaction ${hash}`);
    if (receipt.status !== "success") {
      if (current.status !== "pending" && current.status !== "canceled")
        throw errors.conflict("PROPOSAL_NOT_PENDING", `proposal ${id} is ${current.status}; the cancel reverted`);
      throw new ApiError(400, "TX_FAILED", `transaction ${hash} reverted`);
    }
    const canceled = parseEventLogs({ abi: g.abi, logs: receipt.logs, eventName: "ProposalCanceled" }).some(
      (l) => isAddressEqual(l.address, g.address) && l.args.proposalId === id,
    );
    if (!canceled) throw new ApiError(400, "PROPOSAL_MISMATCH", `transaction ${hash} did not cancel proposal ${id}`);
    await waitForIndexer(
      `proposal ${id} canceled`,
      async () =>
        (
          await deps.pool.query(`select 1 from ${deps.views.names.proposal} where id = $1 and canceled`, [
            id.toString(),
          ])
        ).rows[0],
      deps.env.INDEXER_WAIT_MS,
    );
    const proposalNow = await getProposal(deps, id);
    return c.json(
      { success: true, proposal: proposalNow, txHash: hash, message: `Proposal ${id} is ${proposalNow.status}.` },
      200,
    );
  })
  .openapi(voteRoute, async (c) => {
    const deps = c.get("deps");
    const voter = await requireAccessToken(c);
    const { proposalId: idText } = c.req.valid("param");
    const body = c.req.valid("json");
    if (body.voter && !isAddressEqual(body.voter as Address, voter))
      throw errors.forbidden("VOTER_MISMATCH", `the access token is for ${voter}, not ${getAddress(body.voter)}`);
    const id = BigInt(idText);
    const g = governor(deps);
    const snapshot = await deps.chain.readContract({ ...g, functionName: "proposalSnapshot", args: [id] });
    if (snapshot === 0n) throw errors.notFound("PROPOSAL_NOT_FOUND", `proposal ${id} does not exist`);
    const [state, voted, nonce] = await Promise.all([
      deps.chain.readContract({ ...g, functionName: "state", args: [id] }),
      deps.chain.readContract({ ...g, functionName: "hasVoted", args: [id, voter] }),
      deps.chain.readContract({ ...g, functionName: "nonces", args: [voter] }),
    ]);
    if (PROPOSAL_STATES[state] !== "active")
      throw errors.conflict("PROPOSAL_NOT_ACTIVE", `proposal ${id} is ${PROPOSAL_STATES[state]}, not active`);
    if (voted) throw errors.conflict("ALREADY_VOTED", `${voter} already voted on proposal ${id}`);
    const weight = await deps.chain.readContract({ ...g, functionName: "getVotes", args: [voter, snapshot] });
    if (weight === 0n)
      throw errors.forbidden("NO_VOTING_POWER", `${voter} had no delegated votes at the proposal's snapshot`);
    const typed = ballotTypedData({
      governor: g.address,
      chainId: deps.deployments.chainId,
      proposalId: id,
      support: body.support,
      voter,
      nonce,
      reason: body.reason,
    });
    const valid = await deps.chain
      .verifyTypedData({
        ...(typed as never as Parameters<typeof deps.chain.verifyTypedData>[0]),
        address: voter,
        signature: body.signature as Hex,
      })
      .catch(() => false);
    if (!valid)
      throw new ApiError(400, "INVALID_BALLOT_SIGNATURE", `the ballot is not signed by ${voter} (nonce ${nonce})`);
    const key = `gov-vote:${body.signature.toLowerCase()}`;
    const relayed =
      body.reason === undefined
        ? await relayMapped(
            deps,
            "AgentHubGovernor",
            g.abi,
            "castVoteBySig",
            [id, body.support, voter, body.signature as Hex],
            key,
            VOTE_REVERTS,
          )
        : await relayMapped(
            deps,
            "AgentHubGovernor",
            g.abi,
            "castVoteWithReasonAndParamsBySig",
            [id, body.support, voter, body.reason, "0x", body.signature as Hex],
            key,
            VOTE_REVERTS,
          );
    await waitForIndexer(
      `vote ${relayed.txHash}`,
      async () =>
        (
          await deps.pool.query(
            `select 1 from ${deps.views.names.vote} where proposal_id = $1 and lower(voter) = lower($2)`,
            [id.toString(), voter],
          )
        ).rows[0],
      deps.env.INDEXER_WAIT_MS,
    );
    const updated = await getProposal(deps, id);
    const label = ["against", "for", "abstain"][body.support];
    return c.json(
      {
        success: true,
        proposalId: id.toString(),
        voter,
        support: body.support,
        weight: weight.toString(),
        reason: body.reason ?? "",
        txHash: relayed.txHash,
        proposal: updated,
        message: `Voted ${label} with ${weight} votes; the relayer paid the gas.`,
      },
      200,
    );
  })
  .openapi(powerRoute, async (c) => {
    const deps = c.get("deps");
    const { address } = c.req.valid("param");
    return c.json(await votingPower(deps, getAddress(address)), 200);
  })
  .openapi(treasuryRoute, async (c) => c.json(await treasury(c.get("deps")), 200));

// A gasless vote: the voter's EIP-712 ballot, checked here (active proposal, not voted, votes at the snapshot,
// signature), relayed once per signature through castVoteBySig, answered once the indexer shows the vote.
import { ballotTypedData } from "@agenthub/common/protocol";
import { type Address, getAddress, type Hex, isAddressEqual } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { PROPOSAL_STATES, voteIndexed } from "../../stores/governance.ts";
import { governor, requireSnapshot } from "./contracts.ts";
import { getProposal, type Proposal } from "./proposals.ts";

const VOTE_REVERTS: RevertCodes = {
  GovernorAlreadyCastVote: "ALREADY_VOTED",
  GovernorUnexpectedProposalState: "PROPOSAL_NOT_ACTIVE",
  GovernorInvalidSignature: "INVALID_BALLOT_SIGNATURE",
  InvalidAccountNonce: "INVALID_BALLOT_SIGNATURE",
};

export interface VoteParameters {
  id: bigint;
  /** The access token's address. */
  voter: Address;
  /** The voter the body names, if any (must be the bearer). */
  claimedVoter?: string;
  support: 0 | 1 | 2;
  reason?: string;
  signature: string;
}

export interface VoteReturnType {
  weight: bigint;
  txHash: Hex;
  proposal: Proposal;
}

export async function vote(deps: Deps, p: VoteParameters): Promise<VoteReturnType> {
  const { id, voter } = p;
  if (p.claimedVoter && !isAddressEqual(p.claimedVoter as Address, voter)) {
    throw apiError("VOTER_MISMATCH", `the access token is for ${voter}, not ${getAddress(p.claimedVoter)}`);
  }
  const g = governor(deps);
  const snapshot = await requireSnapshot(deps, id);
  const [state, voted, nonce] = await Promise.all([
    deps.chain.readContract({ ...g, functionName: "state", args: [id] }),
    deps.chain.readContract({ ...g, functionName: "hasVoted", args: [id, voter] }),
    deps.chain.readContract({ ...g, functionName: "nonces", args: [voter] }),
  ]);
  if (PROPOSAL_STATES[state] !== "active") {
    throw apiError("PROPOSAL_NOT_ACTIVE", `proposal ${id} is ${PROPOSAL_STATES[state]}, not active`);
  }
  if (voted) throw apiError("ALREADY_VOTED", `${voter} already voted on proposal ${id}`);
  const weight = await deps.chain.readContract({ ...g, functionName: "getVotes", args: [voter, snapshot] });
  if (weight === 0n) {
    throw apiError("NO_VOTING_POWER", `${voter} had no delegated votes at the proposal's snapshot`);
  }
  const typed = ballotTypedData({
    governor: g.address,
    chainId: deps.deployments.chainId,
    proposalId: id,
    support: p.support,
    voter,
    nonce,
    reason: p.reason,
  });
  const valid = await deps.chain
    .verifyTypedData({
      ...(typed as never as Parameters<typeof deps.chain.verifyTypedData>[0]),
      address: voter,
      signature: p.signature as Hex,
    })
    .catch(() => false);
  if (!valid) throw apiError("INVALID_BALLOT_SIGNATURE", `the ballot is not signed by ${voter} (nonce ${nonce})`);
  const key = `gov-vote:${p.signature.toLowerCase()}`;
  const signature = p.signature as Hex;
  const relayed =
    p.reason === undefined
      ? await relayMapped(
          deps,
          "AgentHubGovernor",
          g.abi,
          "castVoteBySig",
          [id, p.support, voter, signature],
          key,
          VOTE_REVERTS,
        )
      : await relayMapped(
          deps,
          "AgentHubGovernor",
          g.abi,
          "castVoteWithReasonAndParamsBySig",
          [id, p.support, voter, p.reason, "0x", signature],
          key,
          VOTE_REVERTS,
        );
  await waitForIndexer(
    `vote ${relayed.txHash}`,
    async () => ((await voteIndexed(deps, id, voter)) ? true : undefined),
    deps.env.INDEXER_WAIT_MS,
  );
  return { weight, txHash: relayed.txHash, proposal: await getProposal(deps, id) };
}

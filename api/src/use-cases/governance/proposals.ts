// Reading proposals: text and history from the indexer, state, tallies and eta from the Governor.
import { getAddress } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import {
  findIndexedProposal,
  listProposalRows,
  type ProposalRow,
  type ProposalStatus,
} from "../../stores/governance.ts";
import { clockAndQuorum, governor, requireSnapshot, stateOf } from "./contracts.ts";

export interface Proposal {
  id: string;
  proposer: string;
  description: string;
  status: ProposalStatus;
  forVotes: string;
  againstVotes: string;
  abstainVotes: string;
  snapshot: number;
  deadline: number;
  clockMode: "mode=timestamp";
  eta: number | null;
  voteStart: string;
  voteEnd: string;
  targets: string[];
  values: string[];
  calldatas: string[];
  createdAt: string;
  txHash: string;
}

function toProposal(row: ProposalRow, status: ProposalStatus): Proposal {
  return {
    id: row.id,
    proposer: getAddress(row.proposer),
    description: row.description,
    status,
    forVotes: row.for_votes,
    againstVotes: row.against_votes,
    abstainVotes: row.abstain_votes,
    snapshot: Number(row.vote_start),
    deadline: Number(row.vote_end),
    clockMode: "mode=timestamp",
    eta: row.eta === null || row.eta === "0" ? null : Number(row.eta),
    voteStart: isoFromSeconds(BigInt(row.vote_start)),
    voteEnd: isoFromSeconds(BigInt(row.vote_end)),
    targets: row.targets.map((t) => getAddress(t)),
    values: row.values,
    calldatas: row.calldatas,
    createdAt: isoFromSeconds(BigInt(row.created_at)),
    txHash: row.created_tx,
  };
}

export async function listProposals(
  deps: Deps,
  filter: { status?: ProposalStatus; limit: number; offset: number },
): Promise<{ proposals: Proposal[]; total: number }> {
  if (filter.status === "expired") {
    throw apiError(
      "UNSUPPORTED_STATUS_FILTER",
      "no proposal is ever expired here: OpenZeppelin 5's GovernorTimelockControl has no grace period (a " +
        "TimelockController operation does not expire), so a queued proposal stays queued until executed or canceled",
    );
  }
  const { rows, total } = await listProposalRows(deps, { ...filter, ...(await clockAndQuorum(deps)) });
  // The chain's state() is the answer; a proposal whose on-chain state no longer matches the filter (the index
  // trails the chain by a moment) is left out.
  const states = await Promise.all(rows.map((r) => stateOf(deps, BigInt(r.id))));
  const proposals = rows
    .map((r, i) => toProposal(r, states[i]!))
    .filter((p) => !filter.status || p.status === filter.status);
  return { proposals, total };
}

/** One proposal: text from the index, state, tallies and eta from the Governor. 404 PROPOSAL_NOT_FOUND. */
export async function getProposal(deps: Deps, id: bigint): Promise<Proposal> {
  await requireSnapshot(deps, id);
  const row = await waitForIndexer(`proposal ${id}`, () => findIndexedProposal(deps, id), deps.env.INDEXER_WAIT_MS);
  const [status, [against, forVotes, abstain], eta] = await Promise.all([
    stateOf(deps, id),
    deps.chain.readContract({ ...governor(deps), functionName: "proposalVotes", args: [id] }),
    deps.chain.readContract({ ...governor(deps), functionName: "proposalEta", args: [id] }),
  ]);
  return toProposal(
    {
      ...row,
      for_votes: forVotes.toString(),
      against_votes: against.toString(),
      abstain_votes: abstain.toString(),
      eta: eta === 0n ? null : eta.toString(),
    },
    status,
  );
}

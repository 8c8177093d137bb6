// Governance reads: proposal text and history from the indexer (chain.proposal, chain.vote, chain.token_holder);
// state, tallies, eta, balances and voting power from the contracts themselves (chain wins).
import { AgentHubGovernorAbi, AgentHubTokenAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress } from "viem";
import type { Deps } from "../../context.ts";
import { errors } from "../../errors.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { waitForIndexer } from "../../lib/wait.ts";

/**
 * IGovernor.ProposalState, by enum value. OpenZeppelin 5's GovernorTimelockControl never answers Expired: a
 * TimelockController operation has no grace period, so a queued proposal stays queued until executed or canceled.
 */
export const PROPOSAL_STATES = [
  "pending",
  "active",
  "canceled",
  "defeated",
  "succeeded",
  "queued",
  "expired",
  "executed",
] as const;
export type ProposalStatus = (typeof PROPOSAL_STATES)[number];

export const governor = (deps: Deps) => ({
  address: deps.deployments.contracts.AgentHubGovernor.address,
  abi: AgentHubGovernorAbi,
});
export const token = (deps: Deps) => ({
  address: deps.deployments.contracts.AgentHubToken.address,
  abi: AgentHubTokenAbi,
});

interface ProposalRow {
  id: string;
  proposer: string;
  description: string;
  targets: string[];
  values: string[];
  calldatas: string[];
  vote_start: string;
  vote_end: string;
  for_votes: string;
  against_votes: string;
  abstain_votes: string;
  eta: string | null;
  created_at: string;
  created_tx: string;
  derived: ProposalStatus;
}

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

/** The Governor's state() derived in SQL from indexed facts at chain time $1 with quorum $2 (for filtering). */
const DERIVED_STATUS = `case when p.executed then 'executed' when p.canceled then 'canceled'
  when p.vote_start >= $1 then 'pending' when p.vote_end >= $1 then 'active'
  when p.for_votes + p.abstain_votes < $2 or p.for_votes <= p.against_votes then 'defeated'
  when p.eta is null then 'succeeded' else 'queued' end`;

const columns = `p.id, p.proposer, p.description, p.targets, p."values", p.calldatas, p.vote_start::text,
  p.vote_end::text, p.for_votes::text, p.against_votes::text, p.abstain_votes::text, p.eta::text,
  p.created_at::text, p.created_tx`;

async function stateOf(deps: Deps, id: bigint): Promise<ProposalStatus> {
  const s = await deps.chain.readContract({ ...governor(deps), functionName: "state", args: [id] });
  return PROPOSAL_STATES[s]!;
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

async function clockAndQuorum(deps: Deps): Promise<{ now: bigint; quorum: bigint }> {
  const block = await deps.chain.getBlock({ blockTag: "latest" });
  const quorum = await deps.chain.readContract({
    ...governor(deps),
    functionName: "quorum",
    args: [block.timestamp - 1n],
  });
  return { now: block.timestamp, quorum };
}

export async function listProposals(
  deps: Deps,
  filter: { status?: ProposalStatus; limit: number; offset: number },
): Promise<{ proposals: Proposal[]; total: number }> {
  const { now, quorum } = await clockAndQuorum(deps);
  const schema = deps.views.names;
  const where = filter.status ? `where (${DERIVED_STATUS}) = $3` : "";
  const params: unknown[] = [now.toString(), quorum.toString()];
  if (filter.status) params.push(filter.status);
  const [rows, count] = await Promise.all([
    deps.pool.query<ProposalRow>(
      `select ${columns}, (${DERIVED_STATUS}) derived from ${schema.proposal} p ${where}
        order by p.created_at desc, p.id desc limit ${filter.limit} offset ${filter.offset}`,
      params,
    ),
    deps.pool.query<{ n: number }>(
      `select count(*)::int n from ${schema.proposal} p ${where}`,
      filter.status ? params : [],
    ),
  ]);
  // The chain's state() is the answer; a proposal whose on-chain state no longer matches the filter (the index
  // trails the chain by a moment) is left out.
  const states = await Promise.all(rows.rows.map((r) => stateOf(deps, BigInt(r.id))));
  const proposals = rows.rows
    .map((r, i) => toProposal(r, states[i]!))
    .filter((p) => !filter.status || p.status === filter.status);
  return { proposals, total: count.rows[0]!.n };
}

async function indexedProposal(deps: Deps, id: bigint): Promise<ProposalRow | undefined> {
  const r = await deps.pool.query<ProposalRow>(
    `select ${columns}, 'pending' derived from ${deps.views.names.proposal} p where p.id = $1`,
    [id.toString()],
  );
  return r.rows[0];
}

/** One proposal: text from the index, state, tallies and eta from the Governor. 404 PROPOSAL_NOT_FOUND. */
export async function getProposal(deps: Deps, id: bigint): Promise<Proposal> {
  const snapshot = await deps.chain.readContract({ ...governor(deps), functionName: "proposalSnapshot", args: [id] });
  if (snapshot === 0n) throw errors.notFound("PROPOSAL_NOT_FOUND", `proposal ${id} does not exist`);
  const row = await waitForIndexer(`proposal ${id}`, () => indexedProposal(deps, id), deps.env.INDEXER_WAIT_MS);
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

export async function votingPower(deps: Deps, who: Address) {
  const [balance, votes, delegate, nonce, delegators] = await Promise.all([
    deps.chain.readContract({ ...token(deps), functionName: "balanceOf", args: [who] }),
    deps.chain.readContract({ ...token(deps), functionName: "getVotes", args: [who] }),
    deps.chain.readContract({ ...token(deps), functionName: "delegates", args: [who] }),
    deps.chain.readContract({ ...governor(deps), functionName: "nonces", args: [who] }),
    deps.pool.query<{ address: string }>(
      `select address from ${deps.views.names.tokenHolder}
        where lower(delegate) = lower($1) and lower(address) <> lower($1) order by address`,
      [who],
    ),
  ]);
  const zero = /^0x0{40}$/i.test(delegate);
  return {
    address: who,
    balance: balance.toString(),
    votingPower: votes.toString(),
    delegatedTo: zero ? null : delegate.toLowerCase() === who.toLowerCase() ? ("self" as const) : getAddress(delegate),
    delegatedFrom: delegators.rows.map((r) => getAddress(r.address)),
    ballotNonce: nonce.toString(),
  };
}

let symbolCache: { address: string; symbol: string } | undefined;
export async function treasury(deps: Deps) {
  const timelock = deps.deployments.contracts.AgentHubTimelock.address;
  const tokenAddress = deps.deployments.contracts.AgentHubToken.address;
  if (symbolCache?.address !== tokenAddress) {
    const symbol = await deps.chain.readContract({ ...token(deps), functionName: "symbol" });
    symbolCache = { address: tokenAddress, symbol };
  }
  const [usdc, gov, eth] = await Promise.all([
    deps.chain.readContract({
      address: deps.deployments.usdc.address,
      abi: TestUSDCAbi,
      functionName: "balanceOf",
      args: [timelock],
    }),
    deps.chain.readContract({ ...token(deps), functionName: "balanceOf", args: [timelock] }),
    deps.chain.getBalance({ address: timelock }),
  ]);
  return {
    address: timelock,
    balances: { USDC: usdc.toString(), [symbolCache.symbol]: gov.toString(), ETH: eth.toString() },
  };
}

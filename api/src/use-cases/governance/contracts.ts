// The Governor and its token as the governance use cases read them: state, tallies, eta and votes come from the
// contracts (chain wins over the index).
import { AgentHubGovernorAbi, AgentHubTokenAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress, type Hex, keccak256, toBytes } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { PROPOSAL_STATES, type ProposalStatus } from "../../stores/governance.ts";

export const governor = (deps: Deps) => ({
  address: deps.deployments.contracts.AgentHubGovernor.address,
  abi: AgentHubGovernorAbi,
});
export const token = (deps: Deps) => ({
  address: deps.deployments.contracts.AgentHubToken.address,
  abi: AgentHubTokenAbi,
});

/** What identifies a proposal to the Governor: (targets, values, calldatas, descriptionHash). */
export function proposalCall(p: {
  targets: string[];
  values: (string | number)[];
  calldatas: string[];
  description: string;
}) {
  return [
    p.targets.map((t) => getAddress(t)),
    p.values.map((v) => BigInt(v)),
    p.calldatas as Hex[],
    keccak256(toBytes(p.description)),
  ] as const;
}

export async function stateOf(deps: Deps, id: bigint): Promise<ProposalStatus> {
  const s = await deps.chain.readContract({ ...governor(deps), functionName: "state", args: [id] });
  return PROPOSAL_STATES[s]!;
}

/** The proposal's snapshot (vote start), or 404 PROPOSAL_NOT_FOUND: the Governor knows no such proposal. */
export async function requireSnapshot(deps: Deps, id: bigint): Promise<bigint> {
  const snapshot = await deps.chain.readContract({ ...governor(deps), functionName: "proposalSnapshot", args: [id] });
  if (snapshot === 0n) throw apiError("PROPOSAL_NOT_FOUND", `proposal ${id} does not exist`);
  return snapshot;
}

/** The latest block's time and the quorum one second before it (the Governor's own reading). */
export async function clockAndQuorum(deps: Deps): Promise<{ now: bigint; quorum: bigint }> {
  const block = await deps.chain.getBlock({ blockTag: "latest" });
  const quorum = await deps.chain.readContract({
    ...governor(deps),
    functionName: "quorum",
    args: [block.timestamp - 1n],
  });
  return { now: block.timestamp, quorum };
}

/** `who`'s delegated votes at `timepoint` and the threshold for proposing. */
export async function proposerVotes(deps: Deps, who: Address, timepoint: bigint) {
  const [votes, threshold] = await Promise.all([
    deps.chain.readContract({ ...governor(deps), functionName: "getVotes", args: [who, timepoint] }),
    deps.chain.readContract({ ...governor(deps), functionName: "proposalThreshold" }),
  ]);
  return { votes, threshold };
}

export const insufficientVotes = (who: Address, votes: bigint, threshold: bigint) =>
  apiError(
    "INSUFFICIENT_VOTING_POWER",
    `${who} has ${votes} delegated votes; proposing needs ${threshold} (delegate tokens to yourself first)`,
  );

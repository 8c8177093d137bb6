// Proposals the proposer submits itself (the Governor makes msg.sender the proposer): without a transaction hash
// the proposal is checked (threshold, duplicate) and the propose() transaction to send is answered; with one, the
// mined transaction must have created exactly this proposal by the bearer, and it is recorded once.
import { type Address, encodeFunctionData, type Hex, isAddressEqual, parseEventLogs } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { minedReceipt } from "../../lib/deposit-tx.ts";
import { recordProposal } from "../../stores/governance.ts";
import { governor, insufficientVotes, proposalCall, proposerVotes } from "./contracts.ts";
import { getProposal, type Proposal } from "./proposals.ts";

export interface ProposeParameters {
  /** The access token's address. */
  proposer: Address;
  targets: string[];
  values: (string | number)[];
  calldatas: string[];
  description: string;
  txHash?: string;
}

export type ProposeReturnType =
  | {
      kind: "prepared";
      proposalId: bigint;
      descriptionHash: Hex;
      votes: bigint;
      threshold: bigint;
      transaction: { to: Address; data: Hex };
    }
  | { kind: "recorded"; proposal: Proposal; txHash: Hex };

export async function propose(deps: Deps, p: ProposeParameters): Promise<ProposeReturnType> {
  const [targets, values, calldatas, descriptionHash] = proposalCall(p);
  const g = governor(deps);
  const proposalId = await deps.chain.readContract({
    ...g,
    functionName: "hashProposal",
    args: [targets, values, calldatas, descriptionHash],
  });

  if (!p.txHash) {
    const now = (await deps.chain.getBlock({ blockTag: "latest" })).timestamp;
    const { votes, threshold } = await proposerVotes(deps, p.proposer, now - 1n);
    if (votes < threshold) throw insufficientVotes(p.proposer, votes, threshold);
    const snapshot = await deps.chain.readContract({ ...g, functionName: "proposalSnapshot", args: [proposalId] });
    if (snapshot !== 0n) {
      throw apiError("PROPOSAL_EXISTS", `proposal ${proposalId} already exists (change the description)`);
    }
    const data = encodeFunctionData({
      abi: g.abi,
      functionName: "propose",
      args: [targets, values, calldatas, p.description],
    });
    return { kind: "prepared", proposalId, descriptionHash, votes, threshold, transaction: { to: g.address, data } };
  }

  const hash = p.txHash as Hex;
  const receipt = await minedReceipt(deps, hash);
  if (receipt.status !== "success") {
    // The Governor's own rule: the proposer's votes one second before the block.
    const block = await deps.chain.getBlock({ blockNumber: receipt.blockNumber });
    const { votes, threshold } = await proposerVotes(deps, receipt.from, block.timestamp - 1n);
    if (votes < threshold) throw insufficientVotes(receipt.from, votes, threshold);
    throw apiError("TX_FAILED", `transaction ${hash} reverted`);
  }
  const created = parseEventLogs({ abi: g.abi, logs: receipt.logs, eventName: "ProposalCreated" }).filter(
    (l) => isAddressEqual(l.address, g.address) && l.args.proposalId === proposalId,
  );
  if (created.length === 0) {
    throw apiError("PROPOSAL_MISMATCH", `transaction ${hash} did not create the proposal in the body`);
  }
  if (!isAddressEqual(created[0]!.args.proposer, p.proposer)) {
    throw apiError("PROPOSER_MISMATCH", "the proposal was made by another address than the access token's");
  }
  if (!(await recordProposal(deps, { proposalId, txHash: hash, proposer: p.proposer }))) {
    throw apiError("TX_ALREADY_USED", `proposal ${proposalId} (transaction ${hash}) was already recorded`);
  }
  return { kind: "recorded", proposal: await getProposal(deps, proposalId), txHash: hash };
}

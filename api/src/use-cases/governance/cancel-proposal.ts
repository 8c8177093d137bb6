// The proposer cancels its pending proposal itself: without a transaction hash the Governor's cancel() to send is
// answered (only the proposer, only while pending); with one, the mined transaction must have canceled it.
import { type Address, encodeFunctionData, type Hex, isAddressEqual, parseEventLogs } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { minedReceipt } from "../../lib/deposit-tx.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { proposalCanceledIndexed } from "../../stores/governance.ts";
import { governor, proposalCall } from "./contracts.ts";
import { getProposal, type Proposal } from "./proposals.ts";

export interface CancelProposalParameters {
  id: bigint;
  /** The access token's address. */
  bearer: Address;
  txHash?: string;
}

export type CancelProposalReturnType =
  | { kind: "prepared"; proposal: Proposal; transaction: { to: Address; data: Hex } }
  | { kind: "canceled"; proposal: Proposal; txHash: Hex };

export async function cancelProposal(deps: Deps, p: CancelProposalParameters): Promise<CancelProposalReturnType> {
  const { id } = p;
  const g = governor(deps);
  const current = await getProposal(deps, id);
  if (!isAddressEqual(current.proposer as Address, p.bearer)) {
    throw apiError("NOT_PROPOSER", `only the proposer ${current.proposer} may cancel proposal ${id}`);
  }

  if (!p.txHash) {
    // OpenZeppelin 5: the proposer may cancel only while the proposal is pending (before voting opens).
    if (current.status !== "pending") {
      throw apiError("PROPOSAL_NOT_PENDING", `proposal ${id} is ${current.status}; only a pending one can be canceled`);
    }
    const data = encodeFunctionData({ abi: g.abi, functionName: "cancel", args: proposalCall(current) });
    return { kind: "prepared", proposal: current, transaction: { to: g.address, data } };
  }

  const hash = p.txHash as Hex;
  const receipt = await minedReceipt(deps, hash);
  if (receipt.status !== "success") {
    if (current.status !== "pending" && current.status !== "canceled") {
      throw apiError("PROPOSAL_NOT_PENDING", `proposal ${id} is ${current.status}; the cancel reverted`);
    }
    throw apiError("TX_FAILED", `transaction ${hash} reverted`);
  }
  const canceled = parseEventLogs({ abi: g.abi, logs: receipt.logs, eventName: "ProposalCanceled" }).some(
    (l) => isAddressEqual(l.address, g.address) && l.args.proposalId === id,
  );
  if (!canceled) throw apiError("PROPOSAL_MISMATCH", `transaction ${hash} did not cancel proposal ${id}`);
  await waitForIndexer(
    `proposal ${id} canceled`,
    async () => ((await proposalCanceledIndexed(deps, id)) ? true : undefined),
    deps.env.INDEXER_WAIT_MS,
  );
  return { kind: "canceled", proposal: await getProposal(deps, id), txHash: hash };
}

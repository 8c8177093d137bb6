// The relayer's wire protocol, shared with its clients: which contracts a call may target, what a relayed call
// answers (the mined transaction with its logs), and the error codes a refusal carries.
import type { ContractName } from "@agenthub/common";
import type { Address, Hex } from "viem";

/** A contract the relayer may call (the allowlist names its functions). */
export type RelayTarget = ContractName | "USDC";

export interface RelayLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  logIndex: number;
}

/**
 * What the API request behind a call named: the agent, the on-chain run or the subscription (vault id) it acts for.
 * A call that acts for one of them without an on-chain consent must name it, and its calldata must act on exactly
 * that one: a confused or compromised caller cannot aim a signed request at another party. No paying account: a
 * permit deposit's payer is whoever signed the permit, which the contracts require to succeed.
 */
export interface RelayScope {
  agentId?: bigint;
  runId?: bigint;
  subscriptionId?: bigint;
}

/** The answer to a relayed call: its mined transaction. */
export interface RelayResult {
  id: string;
  txHash: Hex;
  blockNumber: string;
  gasUsed: string;
  logs: RelayLog[];
}

/** Why the relayer refused or could not complete a call. */
export type RelayErrorCode = "NOT_ALLOWED" | "TX_REVERTED" | "TX_FAILED" | "RECEIPT_TIMEOUT";

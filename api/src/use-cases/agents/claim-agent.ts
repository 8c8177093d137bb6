// Claiming a registered agent: the claimant proves the claim code and signs the spec's claim message; the identity
// token moves to them (the generated wallet consents by EIP-712, relayed) and the wallet's private key is handed over
// exactly once. A lost answer can be fetched again by the same claimant until the custody job erases the key.

import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { claimMessage } from "@agenthub/common/protocol";
import { RelayerCallError } from "@agenthub/relayer/client";
import { type Address, getAddress, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { Deps } from "../../context.ts";
import { apiError, errors } from "../../errors.ts";
import {
  finishClaim,
  hasGeneratedWallet,
  reopenClaim,
  startClaim,
  type WalletRow,
} from "../../stores/agent-wallets.ts";
import { assertClaimable, walletByClaimCode } from "./claim-info.ts";

export interface ClaimAgentParameters {
  agentId: number;
  /** EIP-191 signature of 'I claim agent {agentId} to address {userAddress}'. */
  signature: string;
  userAddress: string;
  claimCode: string;
}

export interface ClaimAgentReturnType {
  agentId: number;
  privateKey: Hex;
  walletAddress: string;
  ownerAddress: Address;
  txHash: string;
  /** When AgentHub erases its copy of the key (a retry of this same claim until then returns it). */
  keyErasedAt: string;
  message: string;
}

async function assertSignedBy(deps: Deps, id: number, p: { signature: string; userAddress: string }) {
  const userAddress = getAddress(p.userAddress);
  // Wallets differ in address casing; the message may carry the address as sent or checksummed.
  for (const written of new Set([p.userAddress, userAddress])) {
    const signed = await deps.chain
      .verifyMessage({
        address: userAddress,
        message: claimMessage(id, written as Address),
        signature: p.signature as Hex,
      })
      .catch(() => false);
    if (signed) return userAddress;
  }
  throw apiError("INVALID_SIGNATURE", `signature is not ${userAddress}'s over "${claimMessage(id, userAddress)}"`);
}

/** The same claimant again (same code, address and signature) while the key is still held for them. */
const isRedelivery = (row: WalletRow, userAddress: string) =>
  row.claim_state !== null &&
  row.claimed_by === userAddress &&
  row.encrypted_key !== null &&
  (row.claim_state === "CLAIMING" || (row.key_redelivery_until !== null && row.key_redelivery_until > new Date()));

function refusedForGood(error: unknown): boolean {
  return error instanceof RelayerCallError && (error.code === "TX_REVERTED" || error.code === "NOT_ALLOWED");
}

/** Moves the token to the claimant (the generated wallet consents by EIP-712), at most once per claimant. */
async function transferToClaimant(deps: Deps, id: number, row: WalletRow, userAddress: Address, privateKey: Hex) {
  const claimSignature = await privateKeyToAccount(privateKey).signTypedData({
    domain: {
      name: "AgentHub Identity",
      version: "1",
      chainId: deps.deployments.chainId,
      verifyingContract: deps.deployments.contracts.AgentIdentity.address,
    },
    types: {
      Claim: [
        { name: "agentId", type: "uint256" },
        { name: "to", type: "address" },
      ],
    },
    primaryType: "Claim",
    message: { agentId: BigInt(id), to: userAddress },
  });
  try {
    // Keyed per claimant: a resumed claim returns the first transaction, a reopened claim is a new one.
    return await deps.relayer.call(
      "AgentIdentity",
      AgentIdentityAbi,
      "claimTransfer",
      [BigInt(id), userAddress, claimSignature],
      `claim:${id}:${userAddress}`,
    );
  } catch (error) {
    // Nothing can move any more: reopen the claim. An unknown outcome (timeout) keeps it CLAIMING for this
    // claimant, whose retry resumes the same transaction.
    if (refusedForGood(error)) {
      await reopenClaim(deps, row.wallet_address, userAddress);
    }
    throw error;
  }
}

export async function claimAgent(deps: Deps, p: ClaimAgentParameters): Promise<ClaimAgentReturnType> {
  const id = p.agentId;
  const row = await walletByClaimCode(deps, p.claimCode);
  if (!row || Number(row.agent_id) !== id) {
    // Only agents registered through AgentHub (a generated wallet) can be claimed at all.
    if (!(await hasGeneratedWallet(deps, id))) throw errors.agentNotFound(id);
    throw apiError("CLAIM_CODE_INVALID", "claim code does not belong to this agent");
  }
  const userAddress = await assertSignedBy(deps, id, p);

  let current = row;
  if (!isRedelivery(current, userAddress)) {
    assertClaimable(current);
    // Exactly one claimant moves the row out of the open state; the others see it claimed.
    if (!(await startClaim(deps, id, userAddress))) {
      // A parallel request of the same claimant may have won: that one is a redelivery too.
      current = (await walletByClaimCode(deps, p.claimCode))!;
      if (!isRedelivery(current, userAddress)) {
        throw apiError("CLAIM_ALREADY_USED", "this agent has already been claimed");
      }
    } else {
      current = { ...current, claim_state: "CLAIMING", claimed_by: userAddress };
    }
  }

  const privateKey = deps.keys.decrypt(current.encrypted_key!, current.wallet_address);
  const transfer = await transferToClaimant(deps, id, current, userAddress, privateKey);
  // The key stays (sealed) for a short redelivery window so a lost answer is never the only copy; then the
  // custody job erases it. Only this claimant, with the same code and a valid signature, can fetch it again.
  const redeliveryUntil = await finishClaim(deps, id, transfer.txHash, deps.env.CLAIM_KEY_REDELIVERY_SECONDS);
  // Read-your-writes for the common case; the answer never waits on (or fails with) the indexer.
  await deps.indexer.waitForBlock(BigInt(transfer.blockNumber), deps.env.INDEXER_WAIT_MS);
  const erasedAt = redeliveryUntil.toISOString();
  return {
    agentId: id,
    privateKey,
    walletAddress: current.wallet_address,
    ownerAddress: userAddress,
    txHash: transfer.txHash,
    keyErasedAt: erasedAt,
    message: `Save this private key now: it controls the agent's wallet. AgentHub erases its copy at ${erasedAt}; until then only a retry of this same claim can fetch it again.`,
  };
}

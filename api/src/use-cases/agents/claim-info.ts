// What a claim code opens (the claim page reads it): the agent, its wallet and registration file, and until when
// the code works. Only an open claim answers.
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { type WalletRow, walletByClaimCodeHash } from "../../stores/agent-wallets.ts";
import { hashClaimCode } from "./register-agent.ts";

export interface ClaimInfoReturnType {
  agentId: number;
  walletAddress: string;
  ipfsHash: string;
  expiresAt: string;
}

/** The generated wallet a claim code opens, if any. */
export const walletByClaimCode = (deps: Pick<Deps, "pool">, claimCode: string) =>
  walletByClaimCodeHash(deps, hashClaimCode(claimCode));

/** Refuses a claim already made, expired, or whose key is gone. */
export function assertClaimable(row: WalletRow) {
  if (row.claim_state !== null) throw apiError("CLAIM_ALREADY_USED", "this agent has already been claimed");
  if (row.claim_expires_at.getTime() < Date.now()) throw apiError("CLAIM_CODE_EXPIRED", "the claim code has expired");
  if (!row.encrypted_key) throw apiError("KEY_UNAVAILABLE", "the agent's key is no longer available");
}

export async function claimInfo(
  deps: Pick<Deps, "pool">,
  { claimCode }: { claimCode: string },
): Promise<ClaimInfoReturnType> {
  const row = await walletByClaimCode(deps, claimCode);
  if (!row) throw apiError("CLAIM_CODE_INVALID", "unknown claim code");
  assertClaimable(row);
  return {
    agentId: Number(row.agent_id),
    walletAddress: row.wallet_address,
    ipfsHash: `ipfs://${row.metadata_cid}`,
    expiresAt: row.claim_expires_at.toISOString(),
  };
}

// Relayed funding of a run: the poster's EIP-3009 ReceiveWithAuthorization whose nonce binds the run's terms
// (RunEscrow.fundingNonce), checked here before the relayer spends gas on it. The escrow recomputes the nonce from
// the terms it is sent and the token checks the signature, so the relayer can fund exactly this run or nothing.
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type RunTerms, runFundingTypedData } from "@agenthub/common/protocol";
import type { Hex } from "viem";
import type { Deps } from "../context.ts";
import { apiError } from "../errors.ts";

export interface FundingAuthorization {
  validBefore: bigint;
  signature: Hex;
}

/**
 * 400 INVALID_AUTHORIZATION unless `auth` is `terms.poster`'s signature (ECDSA or ERC-1271) for `value` to the
 * escrow with these terms' nonce, unexpired on chain time `now`. `used`: the token already spent it (a retried
 * request, answered by the relayer's record of this draft's funding; otherwise the token refuses it: 409
 * AUTHORIZATION_USED).
 */
export async function checkFundingAuthorization(
  deps: Deps,
  terms: RunTerms,
  value: bigint,
  auth: FundingAuthorization,
  now: bigint,
): Promise<{ used: boolean }> {
  if (auth.validBefore <= now) throw apiError("INVALID_AUTHORIZATION", "the authorization has expired");
  const escrow = deps.deployments.contracts.RunEscrow.address;
  const usdc = deps.deployments.usdc;
  const typed = runFundingTypedData({
    token: usdc,
    chainId: deps.deployments.chainId,
    escrow,
    terms,
    value,
    validBefore: auth.validBefore,
  });
  const valid = await deps.chain
    .verifyTypedData({ address: terms.poster, ...typed, signature: auth.signature })
    .catch(() => false);
  if (!valid) {
    throw apiError(
      "INVALID_AUTHORIZATION",
      `the authorization is not ${terms.poster}'s ReceiveWithAuthorization of ${value} to ${escrow} for this run's terms (nonce ${typed.message.nonce}, validBefore ${auth.validBefore})`,
    );
  }
  const used = await deps.chain.readContract({
    address: usdc.address,
    abi: TestUSDCAbi,
    functionName: "authorizationState",
    args: [terms.poster, typed.message.nonce],
  });
  return { used };
}

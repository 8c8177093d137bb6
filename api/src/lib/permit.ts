import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import { PERMIT_TYPES } from "@agenthub/common/protocol";
import { type Address, getAddress, type Hex, hexToSignature, recoverTypedDataAddress } from "viem";
import type { Deps } from "../context.ts";
import { apiError } from "../errors.ts";
import { chainClock } from "./chain-time.ts";

/** Splits a 65-byte EIP-2612 permit signature into (v, r, s); anything else is 400 INVALID_PERMIT. */
export function splitPermitSignature(signature: string): { v: number; r: Hex; s: Hex } {
  try {
    const { r, s, v, yParity } = hexToSignature(signature as Hex);
    return { r, s, v: Number(v ?? BigInt(27 + (yParity ?? 0))) };
  } catch {
    throw apiError("INVALID_PERMIT", "the permit signature is malformed");
  }
}

export interface PermitRequest {
  owner: string;
  spender: Address;
  value: bigint;
  deadline: bigint;
  signature: string;
}

/**
 * Checks an EIP-2612 permit before it is relayed: signed by `owner` over exactly this spender, value, the owner's
 * current token nonce and deadline, and not expired on chain time (the contracts revert when the permit fails, so
 * a bad one would only cost the relayer a reverted transaction). 400 INVALID_PERMIT otherwise.
 */
export async function verifiedPermit(deps: Deps, p: PermitRequest): Promise<{ v: number; r: Hex; s: Hex }> {
  const parts = splitPermitSignature(p.signature);
  if (p.deadline < (await chainClock(deps).now())) throw apiError("INVALID_PERMIT", "the permit has expired");
  const owner = getAddress(p.owner);
  const usdc = deps.deployments.usdc;
  const nonce = await deps.chain.readContract({
    address: usdc.address,
    abi: TestUSDCAbi,
    functionName: "nonces",
    args: [owner],
  });
  const signerAt = (permitNonce: bigint) =>
    recoverTypedDataAddress({
      domain: {
        name: usdc.name,
        version: usdc.version,
        chainId: deps.deployments.chainId,
        verifyingContract: usdc.address,
      },
      types: PERMIT_TYPES,
      primaryType: "Permit",
      message: { owner, spender: p.spender, value: p.value, nonce: permitNonce, deadline: p.deadline },
      signature: p.signature as Hex,
    }).catch(() => undefined);
  // The owner's latest permit, already used: a retried request. It goes on to the relayer under the same
  // idempotency key, which answers the first transaction; used by anyone else (front-run), the relayed deposit
  // reverts on chain and spends nothing.
  if ((await signerAt(nonce)) !== owner && !(nonce > 0n && (await signerAt(nonce - 1n)) === owner)) {
    throw apiError(
      "INVALID_PERMIT",
      `the permit is not ${owner}'s signature for spender ${p.spender}, value ${p.value}, nonce ${nonce} and deadline ${p.deadline}`,
    );
  }
  return parts;
}

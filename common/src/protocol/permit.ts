// EIP-2612 permits: the owner's signature lets one contract (StakeVault, RunEscrow, InsurancePool) pull exactly
// `value` USDC once, so the relayer can submit the deposit and the owner needs no ETH.
import type { Address } from "viem";

export const PERMIT_TYPES = {
  Permit: [
    { name: "owner", type: "address" },
    { name: "spender", type: "address" },
    { name: "value", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export function permitTypedData(opts: {
  /** The token (GET /api/config -> usdc: address, name, version). */
  token: { address: Address; name: string; version: string };
  chainId: number;
  owner: Address;
  spender: Address;
  value: bigint;
  /** The owner's current `nonces(owner)` on the token. */
  nonce: bigint;
  /** Unix seconds (chain time). */
  deadline: bigint;
}) {
  return {
    domain: {
      name: opts.token.name,
      version: opts.token.version,
      chainId: opts.chainId,
      verifyingContract: opts.token.address,
    },
    types: PERMIT_TYPES,
    primaryType: "Permit",
    message: {
      owner: opts.owner,
      spender: opts.spender,
      value: opts.value,
      nonce: opts.nonce,
      deadline: opts.deadline,
    },
  } as const;
}

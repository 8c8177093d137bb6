// A run's cover: the agreed damages a poster declares for a run while it is Open and was never claimed. Insurance
// pays them (less the stake already slashed to the poster, capped by the failed agent's coverage) after a verified
// failure, once per run; the escrow's refund only returns the poster's own deposit. The poster calls
// InsurancePool.setRunCover itself or signs this EIP-712 `RunCover` for setRunCoverBySig (ECDSA or ERC-1271). The
// run id is the nonce: a cover is set once.
import type { Address } from "viem";

export const INSURANCE_POOL_EIP712_NAME = "AgentHub InsurancePool";
export const INSURANCE_POOL_EIP712_VERSION = "1";

export const RUN_COVER_TYPES = {
  RunCover: [
    { name: "runId", type: "uint256" },
    { name: "amount", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

export function runCoverTypedData(opts: {
  /** InsurancePool's address (GET /api/config -> contracts.InsurancePool). */
  pool: Address;
  chainId: number;
  /** The on-chain run id (onchainRunId). */
  runId: bigint;
  /** USDC base units of agreed damages. */
  amount: bigint;
  /** Unix seconds (chain time) after which the pool refuses it. */
  deadline: bigint;
}) {
  return {
    domain: {
      name: INSURANCE_POOL_EIP712_NAME,
      version: INSURANCE_POOL_EIP712_VERSION,
      chainId: opts.chainId,
      verifyingContract: opts.pool,
    },
    types: RUN_COVER_TYPES,
    primaryType: "RunCover",
    message: { runId: opts.runId, amount: opts.amount, deadline: opts.deadline },
  } as const;
}

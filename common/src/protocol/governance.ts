// Client side of gasless governance votes: the EIP-712 ballot a voter signs for POST .../proposals/:id/vote.
// Without a reason it is OpenZeppelin Governor's Ballot (castVoteBySig); with one it is ExtendedBallot with empty
// params (castVoteWithReasonAndParamsBySig). The nonce is AgentHubGovernor.nonces(voter) (also returned as
// ballotNonce by GET /api/advanced/governance/voting-power/:address).
import type { Address } from "viem";

export const GOVERNOR_EIP712_NAME = "AgentHub Governor";
export const GOVERNOR_EIP712_VERSION = "1";

export function ballotTypedData(opts: {
  governor: Address;
  chainId: number;
  proposalId: bigint;
  support: 0 | 1 | 2;
  voter: Address;
  nonce: bigint;
  reason?: string;
}) {
  const domain = {
    name: GOVERNOR_EIP712_NAME,
    version: GOVERNOR_EIP712_VERSION,
    chainId: opts.chainId,
    verifyingContract: opts.governor,
  } as const;
  const base = { proposalId: opts.proposalId, support: opts.support, voter: opts.voter, nonce: opts.nonce };
  if (opts.reason === undefined) {
    return {
      domain,
      types: {
        Ballot: [
          { name: "proposalId", type: "uint256" },
          { name: "support", type: "uint8" },
          { name: "voter", type: "address" },
          { name: "nonce", type: "uint256" },
        ],
      },
      primaryType: "Ballot",
      message: base,
    } as const;
  }
  return {
    domain,
    types: {
      ExtendedBallot: [
        { name: "proposalId", type: "uint256" },
        { name: "support", type: "uint8" },
        { name: "voter", type: "address" },
        { name: "nonce", type: "uint256" },
        { name: "reason", type: "string" },
        { name: "params", type: "bytes" },
      ],
    },
    primaryType: "ExtendedBallot",
    message: { ...base, reason: opts.reason, params: "0x" },
  } as const;
}

// Funding a run without ETH: the poster signs one EIP-3009 `ReceiveWithAuthorization` (token domain) whose nonce is
// the run's terms hash (RunEscrow.fundingNonce), and anyone (the relayer) submits RunEscrow.createRunWithAuthorization.
// The token lets only the escrow receive it, once; the escrow recomputes the nonce from the terms it is given, so a
// submitter can change neither the amount nor a single term of the run.
import { type Address, encodeAbiParameters, type Hex, keccak256, toBytes } from "viem";

export const RECEIVE_WITH_AUTHORIZATION_TYPES = {
  ReceiveWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** RunEscrow.RUN_FUNDING_TAG. */
export const RUN_FUNDING_TAG = keccak256(
  toBytes(
    "AgentHubRunFunding(address escrow,address poster,uint256 reward,uint256 deadline,uint256 maxRevisions,uint256 cover,bytes32 metadataUriHash)",
  ),
);

export interface RunTerms {
  poster: Address;
  /** USDC base units (the fee comes on top). */
  reward: bigint;
  /** Unix seconds: the run's on-chain deadline. */
  deadline: bigint;
  maxRevisions: number;
  /**
   * USDC base units of agreed damages insurance pays the poster after a verified failure (0: none); fixed at funding,
   * at most RunEscrow.maxCoverBps of the reward.
   */
  cover: bigint;
  /** The draft's request document (its `ipfs://` CID). */
  metadataUri: string;
}

/** RunEscrow.fundingNonce(terms) for the escrow at `escrow`. */
export function runFundingNonce(escrow: Address, terms: RunTerms): Hex {
  return keccak256(
    encodeAbiParameters(
      [
        { type: "bytes32" },
        { type: "address" },
        { type: "address" },
        { type: "uint128" },
        { type: "uint64" },
        { type: "uint8" },
        { type: "uint256" },
        { type: "bytes32" },
      ],
      [
        RUN_FUNDING_TAG,
        escrow,
        terms.poster,
        terms.reward,
        terms.deadline,
        terms.maxRevisions,
        terms.cover,
        keccak256(toBytes(terms.metadataUri)),
      ],
    ),
  );
}

/** The typed data the poster signs: `value` is reward + fee at the escrow's current fee rate. */
export function runFundingTypedData(opts: {
  /** The token (GET /api/config -> usdc: address, name, version). */
  token: { address: Address; name: string; version: string };
  chainId: number;
  escrow: Address;
  terms: RunTerms;
  /** reward + fee (the run's `fee` as the API shows it). */
  value: bigint;
  /** Unix seconds (chain time) from which the token refuses it. */
  validBefore: bigint;
}) {
  return {
    domain: {
      name: opts.token.name,
      version: opts.token.version,
      chainId: opts.chainId,
      verifyingContract: opts.token.address,
    },
    types: RECEIVE_WITH_AUTHORIZATION_TYPES,
    primaryType: "ReceiveWithAuthorization",
    message: {
      from: opts.terms.poster,
      to: opts.escrow,
      value: opts.value,
      validAfter: 0n,
      validBefore: opts.validBefore,
      nonce: runFundingNonce(opts.escrow, opts.terms),
    },
  } as const;
}

// On-chain consent to a run action: the EIP-712 `RunConsent` a poster (approve, requestRevision, reject, cancel,
// dispute) or an agent token's owner (claim, start, submit, dispute) signs so that someone else (the relayer) can
// submit RunEscrow's `<action>BySig`. The escrow verifies it (ECDSA or ERC-1271), spends its nonce and refuses it
// after its deadline, for another chain, escrow, run, agent or deliverable. A claim also carries the run's terms
// (poster, reward, deadline, revisions, cover), so an agent's claim consent is void for a run with other terms.
import { type Address, type Hex, sha256, toBytes, zeroAddress, zeroHash } from "viem";

export const RUN_ESCROW_EIP712_NAME = "AgentHub RunEscrow";
export const RUN_ESCROW_EIP712_VERSION = "1";

/** The escrow function each consent authorizes (its `...BySig` twin); also the signed `action` string. */
export const RUN_CONSENT_ACTIONS = [
  "claim",
  "start",
  "submit",
  "approve",
  "requestRevision",
  "reject",
  "cancel",
  "dispute",
] as const;
export type RunConsentAction = (typeof RUN_CONSENT_ACTIONS)[number];

export const RUN_CONSENT_TYPES = {
  RunConsent: [
    { name: "action", type: "string" },
    { name: "runId", type: "uint256" },
    { name: "agentId", type: "uint256" },
    { name: "deliverableHash", type: "bytes32" },
    { name: "terms", type: "RunTerms" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
  RunTerms: [
    { name: "poster", type: "address" },
    { name: "reward", type: "uint256" },
    { name: "deadline", type: "uint256" },
    { name: "maxRevisions", type: "uint256" },
    { name: "cover", type: "uint256" },
  ],
} as const;

/** The terms a claim consent carries: the run's as the escrow holds them (every other action carries zeros). */
export interface ClaimTerms {
  poster: Address;
  /** USDC base units. */
  reward: bigint;
  /** Unix seconds: the run's on-chain deadline. */
  deadline: bigint;
  maxRevisions: bigint;
  /** USDC base units of agreed damages (RunEscrow.coverOf). */
  cover: bigint;
}

export const NO_TERMS: ClaimTerms = { poster: zeroAddress, reward: 0n, deadline: 0n, maxRevisions: 0n, cover: 0n };

/** Nonce key (ERC-4337 layout, high 192 bits) a client uses for a run: consents on different runs never contend. */
export const consentNonceKey = (runId: bigint): bigint => runId & ((1n << 192n) - 1n);

export function runConsentTypedData(opts: {
  /** RunEscrow's address (GET /api/config -> contracts.RunEscrow). */
  escrow: Address;
  chainId: number;
  action: RunConsentAction;
  /** The on-chain run id (onchainRunId). */
  runId: bigint;
  /** The claiming agent (the run's agent for every action after the claim); 0 for a run without one (cancel). */
  agentId?: bigint;
  /** The submitted deliverable (submit: the new one; poster actions and disputes: the run's current one). */
  deliverableHash?: Hex;
  /** claim: the run's terms, cover included; every other action: none (zeros). */
  terms?: ClaimTerms;
  /** The signer's current `nonces(signer, key)` on the escrow. */
  nonce: bigint;
  /** Unix seconds (chain time) after which the escrow refuses it. */
  deadline: bigint;
}) {
  return {
    domain: {
      name: RUN_ESCROW_EIP712_NAME,
      version: RUN_ESCROW_EIP712_VERSION,
      chainId: opts.chainId,
      verifyingContract: opts.escrow,
    },
    types: RUN_CONSENT_TYPES,
    primaryType: "RunConsent",
    message: {
      action: opts.action,
      runId: opts.runId,
      agentId: opts.agentId ?? 0n,
      deliverableHash: opts.deliverableHash ?? zeroHash,
      terms: opts.terms ?? NO_TERMS,
      nonce: opts.nonce,
      deadline: opts.deadline,
    },
  } as const;
}

/**
 * The bytes32 the escrow keeps for a deliverable sent as JSON: the sha-256 of its JSON text (the digest of the
 * raw CID it is stored under), so a client can sign `submit` before uploading.
 */
export const deliverableHashOf = (deliverable: unknown): Hex => sha256(toBytes(JSON.stringify(deliverable)));

// Subscription consent: the subscriber signs the SubscriptionVault's EIP-712 `Subscribe` terms (cadence, reward,
// run count, prepaid amount) and a USDC permit for that amount to the vault; anyone (the API's relayer) may then
// open the subscription, which can only spend the balance on runs at exactly these terms.
import type { Address } from "viem";

export const SUBSCRIPTION_VAULT_EIP712_NAME = "AgentHub SubscriptionVault";
export const SUBSCRIPTION_VAULT_EIP712_VERSION = "1";

export const SUBSCRIBE_TYPES = {
  Subscribe: [
    { name: "subscriber", type: "address" },
    { name: "rewardPerRun", type: "uint96" },
    { name: "interval", type: "uint32" },
    { name: "startsAt", type: "uint48" },
    { name: "totalRuns", type: "uint32" },
    { name: "runDuration", type: "uint32" },
    { name: "maxRevisions", type: "uint8" },
    { name: "amount", type: "uint256" },
    { name: "nonce", type: "uint256" },
    { name: "deadline", type: "uint256" },
  ],
} as const;

/** The vault's `Terms` struct (what `openWithPermit` takes). */
export interface SubscriptionTerms {
  subscriber: Address;
  rewardPerRun: bigint;
  /** Seconds between runs. */
  interval: number;
  /** First run, unix seconds. */
  startsAt: number;
  /** 0 = open-ended. */
  totalRuns: number;
  /** Each run's deadline after its creation, seconds. */
  runDuration: number;
  maxRevisions: number;
}

export function subscribeTypedData(opts: {
  /** The SubscriptionVault (GET /api/config -> contracts.SubscriptionVault). */
  vault: Address;
  chainId: number;
  terms: SubscriptionTerms;
  /** USDC base units prepaid at opening. */
  amount: bigint;
  /** The vault's `nonces(subscriber)`. */
  nonce: bigint;
  /** Unix seconds (chain time) after which the signature is void. */
  deadline: bigint;
}) {
  return {
    domain: {
      name: SUBSCRIPTION_VAULT_EIP712_NAME,
      version: SUBSCRIPTION_VAULT_EIP712_VERSION,
      chainId: opts.chainId,
      verifyingContract: opts.vault,
    },
    types: SUBSCRIBE_TYPES,
    primaryType: "Subscribe",
    message: { ...opts.terms, amount: opts.amount, nonce: opts.nonce, deadline: opts.deadline },
  } as const;
}

// The only calls the relayer will sign. Anything else is refused before it reaches the chain.
import { MAX_MINT_BATCH } from "@agenthub/common";
import * as generated from "@agenthub/common/generated/abis";
import {
  AgentHubGovernorAbi,
  AgentIdentityAbi,
  InsurancePoolAbi,
  RunEscrowAbi,
  StakeVaultAbi,
  SubscriptionVaultAbi,
  TestUSDCAbi,
} from "@agenthub/common/generated/abis";
import { type Abi, type Address, decodeFunctionData, type Hex, isAddressEqual, zeroAddress } from "viem";
import type { RelayScope, RelayTarget } from "./protocol.ts";

export type { RelayScope, RelayTarget } from "./protocol.ts";

export const relayAbis: Partial<Record<RelayTarget, Abi>> = {
  AgentIdentity: AgentIdentityAbi as Abi,
  StakeVault: StakeVaultAbi as Abi,
  RunEscrow: RunEscrowAbi as Abi,
  InsurancePool: InsurancePoolAbi as Abi,
  SubscriptionVault: SubscriptionVaultAbi as Abi,
  AgentHubGovernor: AgentHubGovernorAbi as Abi,
  // transferWithAuthorization has the same ABI on TestUSDC and Circle's USDC.
  USDC: TestUSDCAbi as Abi,
};

export const allowedFunctions: Partial<Record<RelayTarget, readonly string[]>> = {
  // mintBatch: registrations arriving together are minted in one transaction (api/src/mints/mint-batcher.ts).
  AgentIdentity: ["mint", "mintBatch", "setTokenURI", "claimTransfer"],
  // withdrawCredit pays the credited account itself (a payment that failed, e.g. to a USDC-blacklisted address).
  StakeVault: ["depositWithPermit", "slash", "requestWithdrawal", "withdraw", "withdrawCredit"],
  RunEscrow: [
    // The poster's EIP-3009 authorization fixes payer, amount and every term of the run, its cover included
    // (createRun funds a run posted by its caller).
    "createRunWithAuthorization",
    // Poster and agent actions only with the party's EIP-712 consent, which the escrow verifies: the relayer's key
    // alone cannot act for anyone. No `resolve`: disputes are ARBITER_ROLE's, which the relayer does not hold.
    "claimBySig",
    "startBySig",
    "submitBySig",
    "approveBySig",
    "requestRevisionBySig",
    "rejectBySig",
    "disputeBySig",
    "cancelBySig",
    // Chain time decides and only the poster is paid.
    "timeoutSlash",
    // Open to anyone; chain time decides: a submission past the review window pays only the agent (as an approval),
    // a dispute past the dispute window refunds only the poster (the API's run-exits job).
    "releaseAfterReview",
    "expireDispute",
    // Open to anyone; pays only the treasury (the API's fee-sweep job).
    "sweepFees",
    // Open to anyone; pays each agent's rewards only to its token's owner (the API's reward-payout job).
    "payRewards",
    "withdrawCredit",
  ],
  InsurancePool: ["stakeWithPermit", "requestWithdrawal", "withdraw", "claim"],
  // Subscriptions: the subscriber's signed terms + permit open one; runs are created only when due, at those terms,
  // from that subscription's balance; cancel refunds the subscriber. Sponsored runs are the vault's (SPONSOR_ROLE).
  SubscriptionVault: [
    "openWithPermit",
    "topUpWithPermit",
    "trigger",
    "pauseSubscription",
    "resumeSubscription",
    "cancelSubscription",
  ],
  AgentHubGovernor: ["castVoteBySig", "castVoteWithReasonAndParamsBySig"],
  USDC: ["transferWithAuthorization"],
};

/** Every custom error of every contract: a revert deep inside a call (e.g. the vault under the escrow) still decodes. */
export const allErrorsAbi: Abi = (() => {
  const seen = new Map<string, Abi[number]>();
  for (const abi of Object.values(generated) as Abi[]) {
    for (const item of abi)
      if (item.type === "error") seen.set(`${item.name}(${item.inputs.map((i) => i.type)})`, item);
  }
  return [...seen.values()];
})();

/** Addresses the argument checks compare against, and the scope of the request. */
export interface RelayContext {
  runEscrow: Address;
  relayer: Address;
  scope?: RelayScope;
}

/** Why a call's arguments are refused, or null. */
type ArgumentCheck = (args: readonly unknown[], ctx: RelayContext) => string | null;

/** The first refusal of `checks`, or null. */
const all =
  (...checks: ArgumentCheck[]): ArgumentCheck =>
  (args, ctx) => {
    for (const check of checks) {
      const refused = check(args, ctx);
      if (refused) return refused;
    }
    return null;
  };

/** Argument `index` must be the id the request's scope names under `key`. */
const named =
  (fn: string, key: "agentId" | "runId" | "subscriptionId", index: number): ArgumentCheck =>
  (args, ctx) => {
    const expected = ctx.scope?.[key];
    if (expected === undefined) return `${fn}: the relay request must name the ${key} it acts for (scope.${key})`;
    return (args[index] as bigint) === expected
      ? null
      : `${fn}: ${key} ${args[index]} is not the request's ${expected}`;
  };

/** Argument `index` must be a positive amount. */
const positive =
  (fn: string, index: number): ArgumentCheck =>
  (args) =>
    (args[index] as bigint) > 0n ? null : `${fn}: the amount must be positive`;

/** Argument `index` must be a content-addressed URI (what the API stores: ipfs://<cid>). */
const ipfsUri =
  (fn: string, index: number): ArgumentCheck =>
  (args) =>
    typeof args[index] === "string" && /^ipfs:\/\/[A-Za-z0-9]{1,200}$/.test(args[index] as string)
      ? null
      : `${fn}: the URI must be ipfs://<cid>`;

/**
 * Argument bounds per function, on top of the contracts' own. Calls that carry their party's signature, verified on
 * chain, need no scope: RunEscrow's `...BySig` consents and createRunWithAuthorization (EIP-712 / EIP-3009),
 * SubscriptionVault.openWithPermit (the subscriber's terms),
 * AgentIdentity.claimTransfer (the claim signature), the Governor's vote signatures and USDC transferWithAuthorization.
 * Calls whose outcome only the chain decides and that pay a fixed party need none either: timeoutSlash (chain time,
 * the poster), InsurancePool.claim (the poster), withdrawCredit (the credited account), sweepFees (the treasury),
 * releaseAfterReview (chain time, the agent) and expireDispute (chain time, the poster).
 * The rest act for one agent or subscription on the relayer's role alone: they must name it (docs/decisions.md, "The
 * relayer's powers are bounded by arguments").
 */
export const argumentChecks: Partial<Record<string, ArgumentCheck>> = {
  "StakeVault.slash": all(named("StakeVault.slash", "agentId", 0), ([, bps, reason]) =>
    (bps as bigint) <= 0n || (bps as bigint) > 10_000n || typeof reason !== "string" || reason.trim() === ""
      ? "StakeVault.slash: needs 1..10000 bps and a reason"
      : null,
  ),
  // A permit's payer stakes into the agent the request named. The payer is not the caller's to name: the vault
  // reverts unless `from`'s own permit for exactly this amount succeeds, so no standing allowance is ever spent.
  "StakeVault.depositWithPermit": all(
    named("StakeVault.depositWithPermit", "agentId", 0),
    positive("StakeVault.depositWithPermit", 2),
  ),
  "StakeVault.requestWithdrawal": all(
    named("StakeVault.requestWithdrawal", "agentId", 0),
    positive("StakeVault.requestWithdrawal", 1),
  ),
  "StakeVault.withdraw": named("StakeVault.withdraw", "agentId", 0),
  "InsurancePool.stakeWithPermit": all(
    named("InsurancePool.stakeWithPermit", "agentId", 0),
    positive("InsurancePool.stakeWithPermit", 2),
  ),
  "InsurancePool.requestWithdrawal": all(
    named("InsurancePool.requestWithdrawal", "agentId", 0),
    positive("InsurancePool.requestWithdrawal", 1),
  ),
  "InsurancePool.withdraw": named("InsurancePool.withdraw", "agentId", 0),
  "AgentIdentity.mint": ([to]) =>
    isAddressEqual(to as Address, zeroAddress) ? "AgentIdentity.mint: no mint to the zero address" : null,
  "AgentIdentity.mintBatch": ([to]) => {
    const wallets = to as readonly Address[];
    if (wallets.length > MAX_MINT_BATCH) return `AgentIdentity.mintBatch: at most ${MAX_MINT_BATCH} mints per batch`;
    return wallets.some((w) => isAddressEqual(w, zeroAddress))
      ? "AgentIdentity.mintBatch: no mint to the zero address"
      : null;
  },
  // A profile is published to the content store first: the token points at that content, for the named agent only.
  "AgentIdentity.setTokenURI": all(
    named("AgentIdentity.setTokenURI", "agentId", 0),
    ipfsUri("AgentIdentity.setTokenURI", 1),
  ),
  "SubscriptionVault.topUpWithPermit": all(
    named("SubscriptionVault.topUpWithPermit", "subscriptionId", 0),
    positive("SubscriptionVault.topUpWithPermit", 1),
  ),
  "SubscriptionVault.trigger": all(
    named("SubscriptionVault.trigger", "subscriptionId", 0),
    ipfsUri("SubscriptionVault.trigger", 1),
  ),
  "SubscriptionVault.pauseSubscription": named("SubscriptionVault.pauseSubscription", "subscriptionId", 0),
  "SubscriptionVault.resumeSubscription": named("SubscriptionVault.resumeSubscription", "subscriptionId", 0),
  "SubscriptionVault.cancelSubscription": named("SubscriptionVault.cancelSubscription", "subscriptionId", 0),
};

/**
 * The function `data` calls on `target`, or why the relayer refuses it: not on the allowlist, or (when `ctx` is
 * given: every transaction the relayer sends) arguments outside the function's bounds or the request's scope.
 */
export function checkAllowed(
  target: RelayTarget,
  data: Hex,
  ctx?: RelayContext,
): { ok: true; functionName: string; abi: Abi } | { ok: false; reason: string } {
  const abi = relayAbis[target];
  const allowed = allowedFunctions[target];
  if (!abi || !allowed) return { ok: false, reason: `unknown target ${target}` };
  let functionName: string;
  let args: readonly unknown[];
  try {
    const decoded = decodeFunctionData({ abi, data });
    functionName = decoded.functionName;
    args = decoded.args ?? [];
  } catch {
    return { ok: false, reason: `calldata does not match any ${target} function` };
  }
  if (!allowed.includes(functionName)) return { ok: false, reason: `${target}.${functionName} is not relayed` };
  const refused = ctx ? argumentChecks[`${target}.${functionName}`]?.(args, ctx) : null;
  if (refused) return { ok: false, reason: refused };
  return { ok: true, functionName, abi };
}

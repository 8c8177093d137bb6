// The only calls the relayer will sign. Anything else is refused before it reaches the chain.
import { type ContractName, MAX_MINT_BATCH } from "@agenthub/common";
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

export type RelayTarget = ContractName | "USDC";

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
    // The poster's EIP-3009 authorization fixes payer, amount and every term of the run (createRun and
    // createRunWithPermit accept only the poster as caller).
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
    // Open to anyone; pays only the treasury (the API's fee-sweep job).
    "sweepFees",
    "withdrawCredit",
  ],
  // setRunCoverBySig: the poster's EIP-712 RunCover, verified by the pool (ERC-1271 too), fixes run and amount.
  InsurancePool: ["stakeWithPermit", "requestWithdrawal", "withdraw", "claim", "setRunCoverBySig"],
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

/** Addresses the argument checks compare against. */
export interface RelayContext {
  runEscrow: Address;
  relayer: Address;
}

/** Why a call's arguments are refused, or null. Only functions whose arguments can move value elsewhere need one. */
type ArgumentCheck = (args: readonly unknown[], ctx: RelayContext) => string | null;

/**
 * Argument bounds, on top of the contracts' own (moderation slashes go to the treasury with a reason and are rate
 * limited on chain; escrow slashes only pay a run's poster; subscription money moves only as the subscriber signed).
 */
export const argumentChecks: Partial<Record<string, ArgumentCheck>> = {
  "StakeVault.slash": ([, bps, reason]) =>
    (bps as bigint) <= 0n || (bps as bigint) > 10_000n || typeof reason !== "string" || reason.trim() === ""
      ? "StakeVault.slash: needs 1..10000 bps and a reason"
      : null,
  "AgentIdentity.mint": ([to]) =>
    isAddressEqual(to as Address, zeroAddress) ? "AgentIdentity.mint: no mint to the zero address" : null,
  "AgentIdentity.mintBatch": ([to]) => {
    const wallets = to as readonly Address[];
    if (wallets.length > MAX_MINT_BATCH) return `AgentIdentity.mintBatch: at most ${MAX_MINT_BATCH} mints per batch`;
    return wallets.some((w) => isAddressEqual(w, zeroAddress))
      ? "AgentIdentity.mintBatch: no mint to the zero address"
      : null;
  },
};

/**
 * The function `data` calls on `target`, or why the relayer refuses it: not on the allowlist, or (when `ctx` is
 * given) arguments outside the function's bounds.
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

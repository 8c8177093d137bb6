// The only calls the relayer will sign. Anything else is refused before it reaches the chain.
import type { ContractName } from "@agenthub/common";
import * as generated from "@agenthub/common/generated/abis";
import {
  AgentHubGovernorAbi,
  AgentIdentityAbi,
  InsurancePoolAbi,
  RunEscrowAbi,
  StakeVaultAbi,
  TestUSDCAbi,
} from "@agenthub/common/generated/abis";
import { type Abi, type Address, decodeFunctionData, type Hex, isAddressEqual, zeroAddress } from "viem";

export type RelayTarget = ContractName | "USDC";

export const relayAbis: Partial<Record<RelayTarget, Abi>> = {
  AgentIdentity: AgentIdentityAbi as Abi,
  StakeVault: StakeVaultAbi as Abi,
  RunEscrow: RunEscrowAbi as Abi,
  InsurancePool: InsurancePoolAbi as Abi,
  AgentHubGovernor: AgentHubGovernorAbi as Abi,
  // transferWithAuthorization has the same ABI on TestUSDC and Circle's USDC.
  USDC: TestUSDCAbi as Abi,
};

export const allowedFunctions: Partial<Record<RelayTarget, readonly string[]>> = {
  AgentIdentity: ["mint", "setTokenURI", "claimTransfer"],
  // withdrawCredit pays the credited account itself (a payment that failed, e.g. to a USDC-blacklisted address).
  StakeVault: ["depositWithPermit", "slash", "requestWithdrawal", "withdraw", "withdrawCredit"],
  RunEscrow: [
    "createRunWithPermit",
    // Subscription runs: paid from the relayer's prepaid subscription balance (api/src/routes/subscriptions).
    "createSponsoredRun",
    "claim",
    "start",
    "submit",
    "approve",
    "requestRevision",
    "reject",
    "dispute",
    "resolve",
    "cancel",
    "timeoutSlash",
    "withdrawCredit",
  ],
  InsurancePool: ["stakeWithPermit", "requestWithdrawal", "withdraw", "claim"],
  AgentHubGovernor: ["castVoteBySig", "castVoteWithReasonAndParamsBySig"],
  // approve: the relayer's allowance to RunEscrow for createSponsoredRun (subscription runs).
  USDC: ["transferWithAuthorization", "approve"],
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
 * limited on chain; escrow slashes only pay a run's poster). A leaked relayer token cannot make the relayer hand
 * its prepaid subscription balance to anyone but the escrow, nor sponsor runs for itself.
 */
export const argumentChecks: Partial<Record<string, ArgumentCheck>> = {
  "USDC.approve": ([spender], ctx) =>
    isAddressEqual(spender as Address, ctx.runEscrow)
      ? null
      : "USDC.approve: the relayer only gives an allowance to RunEscrow (subscription runs)",
  "RunEscrow.createSponsoredRun": ([poster], ctx) =>
    isAddressEqual(poster as Address, ctx.relayer) || isAddressEqual(poster as Address, zeroAddress)
      ? "RunEscrow.createSponsoredRun: the poster must be the subscriber, not the relayer"
      : null,
  "StakeVault.slash": ([, bps, reason]) =>
    (bps as bigint) <= 0n || (bps as bigint) > 10_000n || typeof reason !== "string" || reason.trim() === ""
      ? "StakeVault.slash: needs 1..10000 bps and a reason"
      : null,
  "AgentIdentity.mint": ([to]) =>
    isAddressEqual(to as Address, zeroAddress) ? "AgentIdentity.mint: no mint to the zero address" : null,
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

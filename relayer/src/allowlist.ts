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
import { type Abi, decodeFunctionData, type Hex } from "viem";

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
  StakeVault: ["depositWithPermit", "slash", "requestWithdrawal", "withdraw"],
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

/** The function `data` calls on `target`, or why the relayer refuses it. */
export function checkAllowed(
  target: RelayTarget,
  data: Hex,
): { ok: true; functionName: string; abi: Abi } | { ok: false; reason: string } {
  const abi = relayAbis[target];
  const allowed = allowedFunctions[target];
  if (!abi || !allowed) return { ok: false, reason: `unknown target ${target}` };
  let functionName: string;
  try {
    functionName = decodeFunctionData({ abi, data }).functionName;
  } catch {
    return { ok: false, reason: `calldata does not match any ${target} function` };
  }
  if (!allowed.includes(functionName)) return { ok: false, reason: `${target}.${functionName} is not relayed` };
  return { ok: true, functionName, abi };
}

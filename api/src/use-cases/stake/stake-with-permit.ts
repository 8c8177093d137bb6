// Gasless stake: the relayer submits StakeVault.depositWithPermit with the wallet's EIP-2612 permit (once per
// signature), then the deposit is recorded as if the wallet had sent it.
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { getAddress, type Hex } from "viem";
import type { Deps } from "../../context.ts";
import { verifiedPermit } from "../../lib/permit.ts";
import { requireAgentAt } from "../guards.ts";
import { assertStakeAllowed, recordDeposit, type StakeResult, stakeAnswer } from "./stake-rules.ts";

export interface StakeWithPermitParameters {
  agentId: number;
  walletAddress: string;
  /** USDC base units. */
  amount: string;
  /** The permit's deadline, unix seconds. */
  deadline: number;
  signature: Hex;
}

export async function stakeWithPermit(deps: Deps, p: StakeWithPermitParameters): Promise<StakeResult> {
  const amount = BigInt(p.amount);
  const { agent, ...at } = await requireAgentAt(deps, p.agentId);
  assertStakeAllowed(agent, at, p.walletAddress, amount);
  const { r, s, v } = await verifiedPermit(deps, {
    owner: p.walletAddress,
    spender: deps.deployments.contracts.StakeVault.address,
    value: amount,
    deadline: BigInt(p.deadline),
    signature: p.signature,
  });
  const relayed = await deps.relayer.call(
    "StakeVault",
    StakeVaultAbi,
    "depositWithPermit",
    [BigInt(p.agentId), getAddress(p.walletAddress), amount, BigInt(p.deadline), v, r, s],
    `stake-permit:${p.signature.toLowerCase()}`,
    { agentId: BigInt(p.agentId) },
  );
  await recordDeposit(deps, agent, relayed.txHash, p.walletAddress, amount);
  return stakeAnswer(deps, p.agentId, relayed.txHash);
}

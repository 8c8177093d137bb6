// Staking coverage for an agent: gasless (the wallet's EIP-2612 permit, relayed through stakeWithPermit) or the
// wallet's own InsurancePool.stake transaction, verified from its receipt. Each transaction counts once.
import { InsurancePoolAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress, type Hex } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { isAgentWalletOrOwner, verifyDepositTx } from "../../lib/deposit-tx.ts";
import { verifiedPermit } from "../../lib/permit.ts";
import { type CoverageSummary, coverageSummary, recordInsuranceStake } from "../../stores/insurance.ts";
import { requireAgent } from "../guards.ts";
import { positiveAmount, relayPool, waitForInsuranceTx } from "./pool.ts";

export interface StakeCoverageParameters {
  agentTokenId: number;
  /** USDC base units. */
  amountUsdc: string;
  /** The paying wallet: the agent's wallet or its owner. */
  walletAddress: string;
  /** Self-paid: the wallet's own InsurancePool.stake transaction (exactly one of txHash and signature + deadline). */
  txHash?: string;
  /** Gasless: the permit's deadline (unix seconds) and signature for spender = InsurancePool. */
  deadline?: number;
  signature?: string;
}

export interface StakeCoverageReturnType {
  success: boolean;
  agentTokenId: number;
  amountUsdc: string;
  stakedBy: Address;
  txHash: Hex;
  stake: CoverageSummary;
  message: string;
}

export async function stakeCoverage(deps: Deps, p: StakeCoverageParameters): Promise<StakeCoverageReturnType> {
  const amount = positiveAmount(p.amountUsdc);
  const agent = await requireAgent(deps, p.agentTokenId);
  if (!isAgentWalletOrOwner(agent, p.walletAddress))
    throw apiError("WALLET_MISMATCH", "walletAddress is neither the agent's wallet nor its owner");
  const wallet = getAddress(p.walletAddress);
  const pool = deps.deployments.contracts.InsurancePool.address;
  let hash: Hex;
  let mode: "PERMIT" | "TX";
  if (p.txHash) {
    hash = p.txHash as Hex;
    mode = "TX";
    await verifyDepositTx(deps, {
      hash,
      abi: InsurancePoolAbi,
      contract: pool,
      eventName: "CoverageStaked",
      agentId: agent.id,
      walletAddress: wallet,
      amount,
    });
  } else {
    const deadline = BigInt(p.deadline!);
    const signature = p.signature!;
    const { r, s, v } = await verifiedPermit(deps, {
      owner: wallet,
      spender: pool,
      value: amount,
      deadline,
      signature,
    });
    const relayed = await relayPool(
      deps,
      "stakeWithPermit",
      [BigInt(agent.id), wallet, amount, deadline, v, r, s],
      `insurance-stake-permit:${signature.toLowerCase()}`,
      { agentId: BigInt(agent.id) },
    );
    hash = relayed.txHash;
    mode = "PERMIT";
  }
  if (!(await recordInsuranceStake(deps, { txHash: hash, agentId: agent.id, wallet, amount, mode })))
    throw apiError("TX_ALREADY_USED", `transaction ${hash} was already recorded`);
  await waitForInsuranceTx(deps, hash, "STAKED");
  const stake = await coverageSummary(deps, agent.id);
  return {
    success: true,
    agentTokenId: agent.id,
    amountUsdc: amount.toString(),
    stakedBy: wallet,
    txHash: hash,
    stake,
    message: `Staked ${amount} USDC base units; agent ${agent.id} now has ${stake.availableCoverage} available coverage.`,
  };
}

// A StakeVault deposit the agent's wallet (or owner) sent itself, recorded by its transaction hash (once).
import type { Hex } from "viem";
import type { Deps } from "../../context.ts";
import { requireAgentAt } from "../guards.ts";
import { assertStakeAllowed, recordDeposit, type StakeResult, stakeAnswer } from "./stake-rules.ts";

export interface RecordStakeParameters {
  agentId: number;
  walletAddress: string;
  /** USDC base units. */
  amount: string;
  txHash: Hex;
}

export async function recordStake(deps: Deps, p: RecordStakeParameters): Promise<StakeResult> {
  const { agent, ...at } = await requireAgentAt(deps, p.agentId);
  assertStakeAllowed(agent, at, p.walletAddress, BigInt(p.amount));
  await recordDeposit(deps, agent, p.txHash, p.walletAddress, BigInt(p.amount));
  return stakeAnswer(deps, p.agentId, p.txHash);
}

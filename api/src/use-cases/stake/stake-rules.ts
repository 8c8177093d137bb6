// What every stake deposit checks and answers: the amount against the vault's minimum, the agent's trust state and
// who deposits; the deposit recorded once and indexed; the agent's stake as the answer reports it.
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { getAddress, type Hex } from "viem";
import type { Deps } from "../../context.ts";
import { type AgentStatus, activeStake } from "../../domain/agent-status.ts";
import { apiError } from "../../errors.ts";
import { isAgentWalletOrOwner, verifyDepositTx } from "../../lib/deposit-tx.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { type AgentRecord, recordStakeTx, stakeEventsOfTx } from "../../stores/agents.ts";
import { requireAgentAt } from "../guards.ts";

export interface StakeResult {
  success: boolean;
  agentId: number;
  stakedAmount: string;
  stakedAt: string | null;
  status: AgentStatus;
  txHash: string;
  message: string;
}

/** The agent's active stake and since when, as the stake answers show them. */
export const stakeFields = (agent: AgentRecord) => ({
  stakedAmount: activeStake(agent.stake).toString(),
  stakedAt: agent.stakedAt === null ? null : isoFromSeconds(agent.stakedAt),
});

/** A deposit of `amount` from `walletAddress` for `agent`: at least the minimum, not banned, its wallet or owner. */
export function assertStakeAllowed(
  agent: AgentRecord,
  { minStake, status }: { minStake: bigint; status: AgentStatus },
  walletAddress: string,
  amount: bigint,
) {
  if (amount < minStake) {
    throw apiError("INSUFFICIENT_STAKE", `minimum stake is ${minStake} base units (the vault's minimum)`);
  }
  if (status === "BANNED") {
    throw apiError("AGENT_BANNED", `agent ${agent.id} is banned`);
  }
  if (!isAgentWalletOrOwner(agent, walletAddress))
    throw apiError("WALLET_MISMATCH", "walletAddress is neither the agent's wallet nor its owner");
}

/** Verifies the receipt holds a Staked deposit for this agent from walletAddress, records the hash once, waits for the indexer. */
export async function recordDeposit(deps: Deps, agent: AgentRecord, hash: Hex, walletAddress: string, amount: bigint) {
  const deposited = await verifyDepositTx(deps, {
    hash,
    abi: StakeVaultAbi,
    contract: deps.deployments.contracts.StakeVault.address,
    eventName: "Staked",
    agentId: agent.id,
    walletAddress,
    amount,
  });
  const recorded = await recordStakeTx(deps, {
    txHash: hash,
    agentId: agent.id,
    wallet: getAddress(walletAddress),
    amount: deposited,
  });
  if (!recorded) throw apiError("TX_ALREADY_USED", `transaction ${hash} was already recorded`);
  await waitForIndexer(
    `stake ${hash}`,
    async () => ((await stakeEventsOfTx(deps, hash)).n > 0 ? true : undefined),
    deps.env.INDEXER_WAIT_MS,
  );
}

/** The answer to a recorded deposit: the agent's stake and status after it. */
export async function stakeAnswer(deps: Deps, agentId: number, hash: string): Promise<StakeResult> {
  const { agent, minStake, status } = await requireAgentAt(deps, agentId);
  return {
    success: true,
    agentId,
    ...stakeFields(agent),
    status,
    txHash: hash,
    message:
      status === "PROVISIONAL" || status === "ESTABLISHED"
        ? "Stake recorded: the agent can claim runs."
        : `Stake recorded; status is ${status} (at least ${minStake} base units must be staked, and a slashed agent must stake again).`,
  };
}

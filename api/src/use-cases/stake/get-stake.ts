// An agent's stake as GET /api/agents/:id/stake shows it: active stake, trust state, slashes, the vault's minimum.
import type { Deps } from "../../context.ts";
import { activeStake, canClaimRuns } from "../../domain/agent-status.ts";
import { slashHistory } from "../../stores/agents.ts";
import { requireAgentAt } from "../guards.ts";
import { stakeFields } from "./stake-rules.ts";

export async function getStake(deps: Deps, agentId: number) {
  const { agent, minStake, status } = await requireAgentAt(deps, agentId);
  const staked = activeStake(agent.stake);
  return {
    agentId,
    status,
    ...stakeFields(agent),
    slashHistory: await slashHistory(deps, agentId),
    isStaked: staked >= minStake,
    canClaimRuns: canClaimRuns(status),
    minimumStake: minStake.toString(),
    pendingWithdrawal: (agent.stake?.pendingWithdrawal ?? 0n).toString(),
  };
}

export type GetStakeReturnType = Awaited<ReturnType<typeof getStake>>;

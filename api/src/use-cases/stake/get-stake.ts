// An agent's stake as GET /api/agents/:id/stake shows it: active stake, trust state, slashes, the vault's minimum.
import type { Deps } from "../../context.ts";
import { activeStake, canClaimRuns } from "../../domain/agent-status.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { slashHistory, statusOf } from "../../stores/agents.ts";
import { loadAgentAt } from "./stake-rules.ts";

export async function getStake(deps: Deps, agentId: number) {
  const { agent, now, minStake } = await loadAgentAt(deps, agentId);
  const status = statusOf(agent, now, minStake);
  const staked = activeStake(agent.stake);
  return {
    agentId,
    status,
    stakedAmount: staked.toString(),
    stakedAt: agent.stakedAt === null ? null : isoFromSeconds(agent.stakedAt),
    slashHistory: await slashHistory(deps, agentId),
    isStaked: staked >= minStake,
    canClaimRuns: canClaimRuns(status),
    minimumStake: minStake.toString(),
    pendingWithdrawal: (agent.stake?.pendingWithdrawal ?? 0n).toString(),
  };
}

export type GetStakeReturnType = Awaited<ReturnType<typeof getStake>>;

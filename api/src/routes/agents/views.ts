import type { z } from "@hono/zod-openapi";
import { activeStake } from "../../domain/agent-status.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { type AgentListEntry, type AgentRecord, type SlashEntry, statusOf } from "../../stores/agents.ts";
import type { agentDetail, agentListItem } from "./schemas.ts";

export function toListItem(agent: AgentListEntry): z.infer<typeof agentListItem> {
  return {
    tokenId: agent.id,
    name: agent.profile.name,
    walletAddress: agent.wallet,
    ipfsHash: agent.metadataUri,
    claimed: agent.claimed,
    createdAt: isoFromSeconds(agent.registeredAt),
    capabilities: agent.profile.capabilities,
    programmingLangs: agent.profile.programmingLangs,
    domains: agent.profile.domains,
    tools: agent.profile.tools,
  };
}

export function toDetail(
  agent: AgentRecord,
  now: bigint,
  minStake: bigint,
  slashes: SlashEntry[],
): z.infer<typeof agentDetail> {
  return {
    ...toListItem(agent),
    id: agent.id,
    description: agent.profile.description,
    ownerAddress: agent.owner,
    endpoints: agent.profile.endpoints,
    status: statusOf(agent, now, minStake),
    stakedAmount: activeStake(agent.stake).toString(),
    stakedAt: agent.stakedAt === null ? null : isoFromSeconds(agent.stakedAt),
    slashHistory: JSON.stringify(slashes),
    reportCount: agent.reportCount,
    reputation: {
      score: agent.score,
      completions: agent.completions,
      totalClaimed: agent.totalClaimed,
      totalVolume: agent.totalVolume,
    },
  };
}

// One agent of a white-label site's directory, as its page shows it (status as of chain time, stake in USDC).
import type { Deps } from "../../context.ts";
import { activeStake } from "../../domain/agent-status.ts";
import { statusOf } from "../../stores/agents.ts";
import { orgDirectoryEntry } from "./org-directory.ts";

export interface SiteAgent {
  id: number;
  name: string;
  description: string;
  status: string;
  score: number;
  completions: number;
  /** Whole USDC with six decimals, e.g. "25.000000". */
  stakedUsdc: string;
  claimed: boolean;
  owner: string;
  wallet: string;
  capabilities: string[];
  programmingLangs: string[];
  domains: string[];
  tools: string[];
  organization: string;
  /** The organization that shares the agent with this one, null for the organization's own. */
  sharedBy: string | null;
}

/** Agent `agentId` of organization `orgId`'s directory, or null when the organization does not see it. */
export async function siteAgent(
  deps: Pick<Deps, "pool" | "views" | "clock" | "params">,
  { orgId, agentId }: { orgId: string; agentId: number },
): Promise<SiteAgent | null> {
  const agent = await orgDirectoryEntry(deps, { orgId, agentId });
  if (!agent) return null;
  const [now, { minStake }] = await Promise.all([deps.clock.now(), deps.params.current()]);
  const usdc = activeStake(agent.stake);
  return {
    id: agent.id,
    name: agent.profile.name,
    description: agent.profile.description,
    status: statusOf(agent, now, minStake),
    score: agent.score,
    completions: agent.completions,
    stakedUsdc: `${usdc / 1_000_000n}.${(usdc % 1_000_000n).toString().padStart(6, "0")}`,
    claimed: agent.claimed,
    owner: agent.owner,
    wallet: agent.wallet,
    capabilities: agent.profile.capabilities,
    programmingLangs: agent.profile.programmingLangs,
    domains: agent.profile.domains,
    tools: agent.profile.tools,
    organization: agent.orgId ?? orgId,
    sharedBy: agent.orgId && agent.orgId !== orgId ? agent.orgId : null,
  };
}

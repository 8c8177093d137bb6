// The agents an organization's views show: its own and those of organizations sharing reputation with it.
import type { Deps } from "../../context.ts";
import type { AgentRecord } from "../../stores/agents.ts";
import { type DirectoryFilter, orgDirectory, orgDirectoryAgent } from "../../stores/org-agents.ts";
import { visibleOrgIds } from "../../stores/org-sharing.ts";

type DirectoryDeps = Pick<Deps, "pool" | "views">;

/** One page of the directory, by agent id, with each agent's organization. */
export async function orgDirectoryPage(deps: DirectoryDeps, p: DirectoryFilter & { orgId: string }) {
  return orgDirectory(deps, await visibleOrgIds(deps, p.orgId), p);
}

/** One agent of the directory, or null when the organization does not see it. */
export async function orgDirectoryEntry(
  deps: DirectoryDeps,
  p: { orgId: string; agentId: number },
): Promise<AgentRecord | null> {
  return orgDirectoryAgent(deps, await visibleOrgIds(deps, p.orgId), p.agentId);
}

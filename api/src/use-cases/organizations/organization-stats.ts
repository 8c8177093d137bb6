import type { Deps } from "../../context.ts";
import { orgAgentFacts, orgUsageTotals } from "../../stores/org-agents.ts";
import { getOrganization } from "./get-organization.ts";

export type OrganizationStats = Awaited<ReturnType<typeof organizationStats>>;

/** The organization's agents, the bounties they posted and completed, and its API usage (404 for no organization). */
export async function organizationStats(deps: Pick<Deps, "db" | "pool" | "views">, { orgId }: { orgId: string }) {
  await getOrganization(deps, { id: orgId });
  const [facts, usage] = await Promise.all([orgAgentFacts(deps, orgId), orgUsageTotals(deps, orgId)]);
  return {
    organization: orgId,
    agents: { total: facts.total, active: facts.active, avgReputation: facts.avgReputation },
    bounties: { created: facts.created, completed: facts.completed, totalVolume: facts.volume },
    apiUsage: usage,
  };
}

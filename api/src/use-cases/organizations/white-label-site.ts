// What a white-label site (routes/white-label) shows: the organization its host names and its landing numbers.
import type { Deps } from "../../context.ts";
import { orgAgentFacts } from "../../stores/org-agents.ts";
import { type OrgRow, orgByActiveDomain, orgBySubdomain } from "../../stores/organizations.ts";

/** The organization served at a host: by subdomain, or by a verified (active) custom domain. */
export async function siteOrganization(
  deps: Pick<Deps, "db">,
  site: { kind: "subdomain"; subdomain: string } | { kind: "domain"; host: string },
): Promise<OrgRow | null> {
  return site.kind === "subdomain" ? orgBySubdomain(deps, site.subdomain) : orgByActiveDomain(deps, site.host);
}

/** The landing page's public numbers: the organization's agents and the bounties they completed or posted. */
export async function siteLandingFacts(deps: Pick<Deps, "pool" | "views">, { orgId }: { orgId: string }) {
  const f = await orgAgentFacts(deps, orgId);
  return { agents: f.total, active: f.active, avgReputation: f.avgReputation, bountiesCompleted: f.completed };
}

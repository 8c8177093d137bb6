// A custom domain (growth plan and above): configured pending, then verified by a TXT record holding the token.
import type { Deps } from "../../context.ts";
import { PLANS } from "../../domain/plans.ts";
import { apiError } from "../../errors.ts";
import { domainActiveElsewhere, type OrgRow, setPendingDomain } from "../../stores/organizations.ts";
import { getOrganization } from "./get-organization.ts";
import { newDomainToken } from "./ids.ts";

export function assertCustomDomain(o: OrgRow): void {
  if (!PLANS[o.plan].customDomain) {
    throw apiError("PLAN_LIMIT_REACHED", `the ${o.plan} plan has no custom domain; upgrade to growth`);
  }
}

/** Sets the domain pending with a new token (unchanged when it is the domain already configured). */
export async function configureDomain(deps: Pick<Deps, "db">, p: { orgId: string; domain: string }): Promise<OrgRow> {
  const org = await getOrganization(deps, { id: p.orgId });
  assertCustomDomain(org);
  if (org.domain === p.domain && org.domainStatus) return org;
  if (await domainActiveElsewhere(deps, p.domain, p.orgId)) {
    throw apiError("DOMAIN_TAKEN", `${p.domain} is in use by another organization`);
  }
  return setPendingDomain(deps, p.orgId, p.domain, newDomainToken());
}

import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { lookupTxt } from "../../lib/net/dns-txt.ts";
import { activateDomain, type OrgRow } from "../../stores/organizations.ts";
import { assertCustomDomain } from "./configure-domain.ts";
import { getOrganization } from "./get-organization.ts";

export const TXT_PREFIX = "_agenthub-verify";
export const txtValue = (token: string) => `agenthub-verify=${token}`;

/** Looks up the TXT record; the domain becomes active when it holds the organization's token. */
export async function verifyDomain(
  deps: Pick<Deps, "db" | "dns" | "logger">,
  { orgId }: { orgId: string },
): Promise<OrgRow> {
  const org = await getOrganization(deps, { id: orgId });
  assertCustomDomain(org);
  if (!org.domain || !org.domainToken) {
    throw apiError("DOMAIN_NOT_CONFIGURED", "configure a domain first: POST /api/organizations/{id}/domain");
  }
  if (org.domainStatus === "active") return org;
  const name = `${TXT_PREFIX}.${org.domain}`;
  const values = await lookupTxt(deps, name);
  if (!values.includes(txtValue(org.domainToken))) {
    throw apiError(
      "DOMAIN_NOT_VERIFIED",
      `no TXT record "${txtValue(org.domainToken)}" at ${name} yet (DNS changes can take up to 48 hours)`,
    );
  }
  const updated = await activateDomain(deps, orgId, org.domain);
  if (updated === "taken") {
    throw apiError("DOMAIN_TAKEN", `${org.domain} is in use by another organization`);
  }
  if (!updated) throw apiError("DOMAIN_CHANGED", "the domain changed during verification; retry");
  return updated;
}

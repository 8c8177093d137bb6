import type { Deps } from "../../context.ts";
import { siteOrigin, subdomainHost } from "../../lib/site-url.ts";
import { subdomainOf } from "../../stores/organizations.ts";

/** Where an organization's agents are claimed: its own site (claim links of agents registered with its key). */
export async function orgSiteOrigin(deps: Pick<Deps, "db" | "env">, orgId: string): Promise<string | undefined> {
  const subdomain = await subdomainOf(deps, orgId);
  return subdomain ? siteOrigin(deps.env, subdomainHost(deps.env, subdomain)) : undefined;
}

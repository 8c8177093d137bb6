// Response shapes of the organization routes, from store rows.
import type { z } from "@hono/zod-openapi";
import type { Deps } from "../../context.ts";
import { effectiveQuotas, PLANS } from "../../domain/plans.ts";
import { orgSiteUrl, subdomainHost } from "../../lib/site-url.ts";
import type { MemberRow } from "../../stores/org-members.ts";
import type { OrgRow } from "../../stores/organizations.ts";
import type { CreatedOrganization } from "../../use-cases/organizations/create-organization.ts";
import { TXT_PREFIX, txtValue } from "../../use-cases/organizations/verify-domain.ts";
import type { organizationView } from "./schemas.ts";

type Env = Pick<Deps, "env">;

/** The DNS records a custom domain needs: a CNAME to the organization's site and the verification TXT. */
export function dnsRecords(deps: Env, org: Pick<OrgRow, "subdomain" | "domain" | "domainToken">) {
  if (!org.domain || !org.domainToken) return [];
  return [
    { type: "CNAME" as const, name: org.domain, value: subdomainHost(deps.env, org.subdomain) },
    { type: "TXT" as const, name: `${TXT_PREFIX}.${org.domain}`, value: txtValue(org.domainToken) },
  ];
}

export function organizationOut(deps: Env, o: OrgRow): z.infer<typeof organizationView> {
  const p = PLANS[o.plan];
  return {
    id: o.id,
    name: o.name,
    subdomain: o.subdomain,
    domain: o.domain,
    domainStatus: o.domainStatus,
    adminEmail: o.adminEmail,
    plan: o.plan,
    isolation: o.isolation,
    branding: o.branding,
    // The organization's white-label site (routes/white-label), which answers at this URL.
    dashboard: orgSiteUrl(deps.env, o.subdomain),
    createdAt: o.createdAt.toISOString(),
    updatedAt: o.updatedAt.toISOString(),
    limits: {
      requestsPerMinute: p.requestsPerMinute,
      agents: p.agents,
      members: p.members,
      webhooks: p.webhooks,
      customDomain: p.customDomain,
      ...effectiveQuotas(o.plan, o),
    },
  };
}

/**
 * A new organization and its credentials (shown only now): variant A (created with a subdomain) flat, variant B
 * nested, with the DNS records its custom domain needs.
 */
export function createdOut(deps: Env, { org, credentials }: CreatedOrganization, variantA: boolean) {
  const view = organizationOut(deps, org);
  if (variantA) {
    return {
      id: org.id,
      name: org.name,
      subdomain: org.subdomain,
      apiKey: credentials.live,
      testApiKey: credentials.test,
      apiSecret: credentials.secret,
      dashboard: view.dashboard,
      createdAt: view.createdAt,
      plan: org.plan,
      isolation: org.isolation,
    };
  }
  const records = dnsRecords(deps, org);
  return {
    organization: view,
    credentials: { apiKey: credentials.live, apiSecret: credentials.secret, testApiKey: credentials.test },
    ...(records.length ? { dnsRecords: records } : {}),
    message: `Organization ${org.name} created on the ${org.plan} plan. Store the credentials now: they are shown only once.${records.length ? ` Publish the DNS records, then POST /api/organizations/${org.id}/domain/verify.` : ""}`,
  };
}

/** The public branding (white-label front ends): the custom domain only once it is active. */
export const brandingOut = (o: OrgRow) => ({
  organization: {
    id: o.id,
    name: o.name,
    subdomain: o.subdomain,
    domain: o.domainStatus === "active" ? o.domain : null,
  },
  branding: o.branding,
});

export const memberOut = (m: MemberRow) => ({
  id: m.id,
  email: m.email,
  role: m.role,
  createdAt: m.createdAt.toISOString(),
});

export const sharingOut = (o: OrgRow) => ({
  organization: o.id,
  shareOutbound: o.shareOutbound,
  acceptInbound: o.acceptInbound,
  whitelistOrgs: o.whitelistOrgs,
});

export const domainOut = (deps: Env, o: OrgRow) => ({
  domain: o.domain!,
  status: o.domainStatus!,
  dnsRecords: dnsRecords(deps, o),
  verifiedAt: o.domainVerifiedAt?.toISOString() ?? null,
});

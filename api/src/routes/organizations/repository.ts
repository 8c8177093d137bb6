import type { z } from "@hono/zod-openapi";
import type { Deps } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { type Isolation, PLANS, type PlanName } from "./plans.ts";
import type { organizationView } from "./schemas.ts";

export interface OrgRow {
  id: string;
  name: string;
  subdomain: string;
  admin_email: string | null;
  plan: PlanName;
  isolation: Isolation;
  branding: Record<string, string>;
  domain: string | null;
  domain_status: "pending" | "active" | null;
  domain_token: string | null;
  domain_verified_at: Date | null;
  share_outbound: boolean;
  accept_inbound: boolean;
  whitelist_orgs: string[];
  created_at: Date;
  updated_at: Date;
}

export const notFound = (id: string) =>
  new ApiError(404, "ORGANIZATION_NOT_FOUND", `organization ${id} does not exist`);

export async function findOrg(deps: Deps, id: string): Promise<OrgRow> {
  const { rows } = await deps.pool.query<OrgRow>("select * from api.organization where id = $1", [id]);
  if (!rows[0]) throw notFound(id);
  return rows[0];
}

export function dashboardUrl(deps: Deps, subdomain: string): string {
  const base = (deps.env.ORG_DASHBOARD_URL ?? `${deps.env.PUBLIC_URL}/orgs`).replace(/\/$/, "");
  return `${base}/${subdomain}`;
}

/** Where a custom domain's CNAME points: the organization's subdomain under the service's host. */
export function cnameTarget(deps: Deps, subdomain: string): string {
  return `${subdomain}.${new URL(deps.env.PUBLIC_URL).hostname}`;
}

export const TXT_PREFIX = "_agenthub-verify";
export const txtValue = (token: string) => `agenthub-verify=${token}`;

export function dnsRecords(deps: Deps, org: Pick<OrgRow, "subdomain" | "domain" | "domain_token">) {
  if (!org.domain || !org.domain_token) return [];
  return [
    { type: "CNAME" as const, name: org.domain, value: cnameTarget(deps, org.subdomain) },
    { type: "TXT" as const, name: `${TXT_PREFIX}.${org.domain}`, value: txtValue(org.domain_token) },
  ];
}

export function toView(deps: Deps, o: OrgRow): z.infer<typeof organizationView> {
  const p = PLANS[o.plan];
  return {
    id: o.id,
    name: o.name,
    subdomain: o.subdomain,
    domain: o.domain,
    domainStatus: o.domain_status,
    adminEmail: o.admin_email,
    plan: o.plan,
    isolation: o.isolation,
    branding: o.branding,
    dashboard: dashboardUrl(deps, o.subdomain),
    createdAt: o.created_at.toISOString(),
    updatedAt: o.updated_at.toISOString(),
    limits: {
      requestsPerMinute: p.requestsPerMinute,
      agents: p.agents,
      members: p.members,
      webhooks: p.webhooks,
      customDomain: p.customDomain,
    },
  };
}

/** A lowercase subdomain derived from a name (variant B has none), e.g. "Acme Corp!" -> "acme-corp". */
export function slugify(name: string): string {
  const slug = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 50)
    .replace(/-+$/, "");
  return slug.length >= 3 ? slug : `org-${slug || "x"}`.replace(/-$/, "");
}

// A new organization: its plan (domain/plans.ts choosePlan), row, three credentials (shown once, stored hashed) and
// its first admin member when an admin e-mail is given, in one transaction.
import { randomBytes } from "node:crypto";
import { displayPrefix, generateCredential, hashCredential } from "../../auth/credentials.ts";
import type { Deps } from "../../context.ts";
import { createDb } from "../../db/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { choosePlan, type Isolation, type PlanName } from "../../domain/plans.ts";
import { apiError } from "../../errors.ts";
import { insertCredential } from "../../stores/org-credentials.ts";
import { insertMember } from "../../stores/org-members.ts";
import { insertOrganization, type OrgRow, subdomainExists } from "../../stores/organizations.ts";
import { newDomainToken, newId } from "./ids.ts";

export interface CreateOrganizationParams {
  name: string;
  /** Variant A names its subdomain; variant B gets one derived from the name. */
  subdomain?: string;
  adminEmail?: string;
  plan?: PlanName;
  isolation?: Isolation;
  branding: Record<string, string>;
  domain?: string;
}

export interface CreatedOrganization {
  org: OrgRow;
  credentials: { live: string; test: string; secret: string };
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

export async function createOrganization(
  deps: Pick<Deps, "pool">,
  p: CreateOrganizationParams,
): Promise<CreatedOrganization> {
  const isolation = p.isolation ?? "none";
  const decision = choosePlan({ plan: p.plan, isolation, customDomain: p.domain !== undefined });
  if (!decision.ok) throw apiError(decision.code, decision.message);
  const id = newId("org");
  const credentials = {
    live: generateCredential("live"),
    test: generateCredential("test"),
    secret: generateCredential("secret"),
  };
  const org = await withTransaction(deps.pool, async (client) => {
    const tx = createDb(client);
    // Variant B has no subdomain: derive one from the name, with a suffix if taken.
    let subdomain = p.subdomain ?? slugify(p.name);
    if (p.subdomain === undefined && (await subdomainExists(tx, subdomain))) {
      subdomain = `${subdomain.slice(0, 54)}-${randomBytes(4).toString("hex")}`;
    }
    const row = await insertOrganization(tx, {
      id,
      name: p.name,
      subdomain,
      adminEmail: p.adminEmail ?? null,
      plan: decision.plan,
      isolation,
      branding: p.branding,
      domain: p.domain ?? null,
      domainStatus: p.domain ? "pending" : null,
      domainToken: p.domain ? newDomainToken() : null,
    });
    if (!row) throw apiError("SUBDOMAIN_TAKEN", `subdomain ${subdomain} is already taken`);
    for (const kind of ["live", "test", "secret"] as const) {
      const value = credentials[kind];
      await insertCredential(client, { hash: hashCredential(value), orgId: id, kind, prefix: displayPrefix(value) });
    }
    if (p.adminEmail) {
      await insertMember(tx, { id: newId("mem"), orgId: id, email: p.adminEmail.toLowerCase(), role: "admin" });
    }
    return row;
  });
  return { org, credentials };
}

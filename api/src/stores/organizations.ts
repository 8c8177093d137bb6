// Organizations (api.organization): the tenant row with its plan, branding, domain, quotas and sharing settings.
import { and, eq, inArray, ne, sql } from "drizzle-orm";
import type { Deps } from "../context.ts";
import { isUniqueViolation } from "../db/errors.ts";
import type { Db } from "../db/index.ts";
import { asSystem } from "../db/org-scope.ts";
import { organization } from "../db/schema/index.ts";
import type { PlanName } from "../domain/plans.ts";

export type OrgRow = typeof organization.$inferSelect;
type Reader = Pick<Deps, "db">;

export async function findOrg(deps: Reader, id: string): Promise<OrgRow | null> {
  const [row] = await deps.db.select().from(organization).where(eq(organization.id, id));
  return row ?? null;
}

export async function orgBySubdomain(deps: Reader, subdomain: string): Promise<OrgRow | null> {
  const [row] = await deps.db.select().from(organization).where(eq(organization.subdomain, subdomain));
  return row ?? null;
}

/** Only a verified (active) custom domain names its organization. */
export async function orgByActiveDomain(deps: Reader, domain: string): Promise<OrgRow | null> {
  const [row] = await deps.db
    .select()
    .from(organization)
    .where(and(eq(organization.domain, domain), eq(organization.domainStatus, "active")));
  return row ?? null;
}

export async function subdomainOf(deps: Reader, id: string): Promise<string | null> {
  const [row] = await deps.db
    .select({ subdomain: organization.subdomain })
    .from(organization)
    .where(eq(organization.id, id));
  return row?.subdomain ?? null;
}

/** Which of `ids` exist, across organizations (an isolated organization's row is outside a tenant's scope). */
export async function existingOrgIds(deps: Pick<Deps, "db" | "pool">, ids: string[]): Promise<string[]> {
  // Awaited inside: a drizzle query runs when awaited, and must run in asSystem's (unscoped) context.
  const rows = await asSystem(
    deps.pool,
    async () => await deps.db.select({ id: organization.id }).from(organization).where(inArray(organization.id, ids)),
  );
  return rows.map((r) => r.id);
}

/** Locks the organization row for the transaction (limits checked against a count) and answers its plan. */
export async function lockOrg(tx: Db, id: string): Promise<PlanName | null> {
  const [row] = await tx
    .select({ plan: organization.plan })
    .from(organization)
    .where(eq(organization.id, id))
    .for("update");
  return row?.plan ?? null;
}

export async function subdomainExists(tx: Db, subdomain: string): Promise<boolean> {
  const rows = await tx
    .select({ id: organization.id })
    .from(organization)
    .where(eq(organization.subdomain, subdomain))
    .limit(1);
  return rows.length > 0;
}

/** Inserts an organization; null when its subdomain is taken. */
export async function insertOrganization(tx: Db, values: typeof organization.$inferInsert): Promise<OrgRow | null> {
  try {
    const [row] = await tx.insert(organization).values(values).returning();
    return row!;
  } catch (err) {
    if (isUniqueViolation(err)) return null;
    throw err;
  }
}

export interface OrgPatch {
  name?: string;
  /** Merged into the stored branding. */
  branding?: Record<string, string>;
  adminEmail?: string;
  plan?: PlanName;
  /** undefined: unchanged; null: back to the plan's value. */
  paymentsPerDay?: number | null;
  apiCallsPerMonth?: number | null;
  shareOutbound?: boolean;
  acceptInbound?: boolean;
  whitelistOrgs?: string[];
}

export async function updateOrg(deps: Reader, id: string, p: OrgPatch): Promise<OrgRow | null> {
  const [row] = await deps.db
    .update(organization)
    .set({
      name: p.name,
      branding: p.branding ? sql`${organization.branding} || ${JSON.stringify(p.branding)}::jsonb` : undefined,
      adminEmail: p.adminEmail,
      plan: p.plan,
      paymentsPerDay: p.paymentsPerDay,
      apiCallsPerMonth: p.apiCallsPerMonth,
      shareOutbound: p.shareOutbound,
      acceptInbound: p.acceptInbound,
      whitelistOrgs: p.whitelistOrgs,
      updatedAt: sql`now()`,
    })
    .where(eq(organization.id, id))
    .returning();
  return row ?? null;
}

/** Another organization serves `domain` already. */
export async function domainActiveElsewhere(deps: Reader, domain: string, id: string): Promise<boolean> {
  const rows = await deps.db
    .select({ id: organization.id })
    .from(organization)
    .where(and(eq(organization.domain, domain), eq(organization.domainStatus, "active"), ne(organization.id, id)))
    .limit(1);
  return rows.length > 0;
}

export async function setPendingDomain(deps: Reader, id: string, domain: string, token: string): Promise<OrgRow> {
  const [row] = await deps.db
    .update(organization)
    .set({ domain, domainStatus: "pending", domainToken: token, domainVerifiedAt: null, updatedAt: sql`now()` })
    .where(eq(organization.id, id))
    .returning();
  return row!;
}

/** Activates the organization's domain if it is still `domain`: null if it changed, "taken" if another has it. */
export async function activateDomain(deps: Reader, id: string, domain: string): Promise<OrgRow | null | "taken"> {
  try {
    const [row] = await deps.db
      .update(organization)
      .set({ domainStatus: "active", domainVerifiedAt: sql`now()`, updatedAt: sql`now()` })
      .where(and(eq(organization.id, id), eq(organization.domain, domain)))
      .returning();
    return row ?? null;
  } catch (err) {
    if (isUniqueViolation(err)) return "taken";
    throw err;
  }
}

import type { Deps } from "../../context.ts";
import type { PlanName } from "../../domain/plans.ts";
import { apiError } from "../../errors.ts";
import { type OrgRow, updateOrg } from "../../stores/organizations.ts";
import { organizationNotFound } from "./get-organization.ts";

export interface UpdateOrganizationParams {
  id: string;
  name?: string;
  branding?: Record<string, string>;
  adminEmail?: string;
  plan?: PlanName;
  quotas?: { paymentsPerDay?: number | null; apiCallsPerMonth?: number | null };
  /** The caller holds the platform admin token (plan and quotas are the platform's to set). */
  platformAdmin: boolean;
}

/** Name, branding (merged) and admin e-mail; plan and quotas with the platform admin token only. */
export async function updateOrganization(deps: Pick<Deps, "db">, p: UpdateOrganizationParams): Promise<OrgRow> {
  if ((p.plan !== undefined || p.quotas !== undefined) && !p.platformAdmin) {
    throw apiError("ADMIN_ONLY", "only the admin token may change an organization's plan or quotas");
  }
  const row = await updateOrg(deps, p.id, {
    name: p.name,
    branding: p.branding ?? {},
    adminEmail: p.adminEmail,
    plan: p.plan,
    paymentsPerDay: p.quotas?.paymentsPerDay,
    apiCallsPerMonth: p.quotas?.apiCallsPerMonth,
  });
  if (!row) throw organizationNotFound(p.id);
  return row;
}

// Reputation-sharing settings (supplement §4; the rule itself: stores/org-sharing.ts).
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { existingOrgIds, type OrgRow, updateOrg } from "../../stores/organizations.ts";
import { organizationNotFound } from "./get-organization.ts";

export interface UpdateSharingParams {
  orgId: string;
  shareOutbound?: boolean;
  acceptInbound?: boolean;
  /** Replaces the whitelist; each entry must be another existing organization. */
  whitelistOrgs?: string[];
}

export async function updateSharing(deps: Pick<Deps, "db" | "pool">, p: UpdateSharingParams): Promise<OrgRow> {
  const whitelist = p.whitelistOrgs ? [...new Set(p.whitelistOrgs)] : undefined;
  if (whitelist) {
    if (whitelist.includes(p.orgId)) {
      throw apiError("INVALID_WHITELIST", "an organization cannot whitelist itself");
    }
    const known = new Set(whitelist.length ? await existingOrgIds(deps, whitelist) : []);
    const unknown = whitelist.filter((w) => !known.has(w));
    if (unknown.length) throw apiError("INVALID_WHITELIST", `unknown organizations: ${unknown.join(", ")}`);
  }
  const row = await updateOrg(deps, p.orgId, {
    shareOutbound: p.shareOutbound,
    acceptInbound: p.acceptInbound,
    whitelistOrgs: whitelist,
  });
  if (!row) throw organizationNotFound(p.orgId);
  return row;
}

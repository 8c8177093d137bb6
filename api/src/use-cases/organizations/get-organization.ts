import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { findOrg, type OrgRow } from "../../stores/organizations.ts";

export const organizationNotFound = (id: string) =>
  apiError("ORGANIZATION_NOT_FOUND", `organization ${id} does not exist`);

/** The organization, or 404 ORGANIZATION_NOT_FOUND. */
export async function getOrganization(deps: Pick<Deps, "db">, { id }: { id: string }): Promise<OrgRow> {
  const org = await findOrg(deps, id);
  if (!org) throw organizationNotFound(id);
  return org;
}

import type { Deps } from "../../context.ts";
import { PLANS } from "../../domain/plans.ts";
import { listMembers, type MemberRow } from "../../stores/org-members.ts";
import { getOrganization } from "./get-organization.ts";

export async function listOrgMembers(
  deps: Pick<Deps, "db">,
  { orgId }: { orgId: string },
): Promise<{ members: MemberRow[]; limit: number | null }> {
  const org = await getOrganization(deps, { id: orgId });
  return { members: await listMembers(deps, orgId), limit: PLANS[org.plan].members };
}

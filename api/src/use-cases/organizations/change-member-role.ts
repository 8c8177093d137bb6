import { ROLES } from "../../domain/plans.ts";
import { apiError } from "../../errors.ts";
import { lockMember, type MemberRow, setMemberRole } from "../../stores/org-members.ts";
import { assertKeepsAnAdmin, type MemberDeps, memberNotFound, withOrgLocked } from "./member-rules.ts";

export interface ChangeMemberRoleParams {
  orgId: string;
  memberId: string;
  /** Checked here: anything but admin, developer or viewer is 400 UNKNOWN_ROLE. */
  role: string;
}

/** Gives a member another role; the member's key acts with it from the next request. */
export async function changeMemberRole(deps: MemberDeps, p: ChangeMemberRoleParams): Promise<MemberRow> {
  const role = ROLES.find((r) => r === p.role);
  if (!role) {
    throw apiError("UNKNOWN_ROLE", `unknown role ${JSON.stringify(p.role)}: use one of ${ROLES.join(", ")}`);
  }
  return withOrgLocked(deps, p.orgId, async (tx) => {
    const member = await lockMember(tx, p.orgId, p.memberId);
    if (!member) throw memberNotFound(p.memberId);
    if (member.role === role) return member;
    await assertKeepsAnAdmin(tx, member);
    return setMemberRole(tx, member.id, role);
  });
}

import { deleteMember, lockMember, type MemberRow } from "../../stores/org-members.ts";
import { assertKeepsAnAdmin, type MemberDeps, memberNotFound, withOrgLocked } from "./member-rules.ts";

export async function removeMember(deps: MemberDeps, p: { orgId: string; memberId: string }): Promise<MemberRow> {
  return withOrgLocked(deps, p.orgId, async (tx) => {
    const member = await lockMember(tx, p.orgId, p.memberId);
    if (!member) throw memberNotFound(p.memberId);
    await assertKeepsAnAdmin(tx, member);
    await deleteMember(tx, member.id);
    return member;
  });
}

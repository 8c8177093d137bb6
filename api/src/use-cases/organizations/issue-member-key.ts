import { lockMember, type MemberRow } from "../../stores/org-members.ts";
import { replaceMemberKey } from "./member-key.ts";
import { type MemberDeps, memberNotFound, withOrgLocked } from "./member-rules.ts";

export async function issueMemberKey(
  deps: MemberDeps,
  p: { orgId: string; memberId: string },
): Promise<{ member: MemberRow; apiKey: string }> {
  return withOrgLocked(deps, p.orgId, async (tx, client) => {
    const member = await lockMember(tx, p.orgId, p.memberId);
    if (!member) throw memberNotFound(p.memberId);
    return { member, apiKey: await replaceMemberKey(client, p.orgId, member.id) };
  });
}

import { PLANS, type Role, underLimit } from "../../domain/plans.ts";
import { apiError } from "../../errors.ts";
import { countMembers, insertMember, type MemberRow } from "../../stores/org-members.ts";
import { newId } from "./ids.ts";
import { replaceMemberKey } from "./member-key.ts";
import { type MemberDeps, withOrgLocked } from "./member-rules.ts";

export interface AddMemberParams {
  orgId: string;
  email: string;
  role: Role;
}

export async function addMember(deps: MemberDeps, p: AddMemberParams): Promise<{ member: MemberRow; apiKey: string }> {
  return withOrgLocked(deps, p.orgId, async (tx, client, plan) => {
    const limit = PLANS[plan].members;
    if (!underLimit(await countMembers(tx, p.orgId), limit)) {
      throw apiError("PLAN_LIMIT_REACHED", `the ${plan} plan allows ${limit} team members`);
    }
    const member = await insertMember(tx, {
      id: newId("mem"),
      orgId: p.orgId,
      email: p.email.toLowerCase(),
      role: p.role,
    });
    if (!member) throw apiError("MEMBER_EXISTS", `${p.email} is already a member`);
    return { member, apiKey: await replaceMemberKey(client, p.orgId, member.id) };
  });
}

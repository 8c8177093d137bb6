// Team members: added with their own API key (shown once), listed, given another role, re-keyed and removed.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { addMember } from "../../use-cases/organizations/add-member.ts";
import { changeMemberRole } from "../../use-cases/organizations/change-member-role.ts";
import { issueMemberKey } from "../../use-cases/organizations/issue-member-key.ts";
import { listOrgMembers } from "../../use-cases/organizations/list-members.ts";
import { removeMember } from "../../use-cases/organizations/remove-member.ts";
import { memberRole, memberView, orgIdParam, orgItemParam } from "./schemas.ts";
import { memberOut } from "./views.ts";

const tags = ["organizations"];
const memberIdParam = orgItemParam("memberId");
/** A member with its API key, shown once. */
const memberWithKey = memberView.extend({ apiKey: z.string() });

const addMemberRoute = createRoute({
  method: "post",
  path: "/{id}/members",
  tags,
  request: { params: orgIdParam, body: jsonBody(z.object({ email: z.email().max(254), role: memberRole }).strict()) },
  summary:
    "Add a team member; the answer carries the member's own API key (ah_member_..., shown once), which acts with the member's role",
  responses: {
    201: json(memberWithKey, "Member and their key"),
    ...errorResponses(400, 401, 403, 404, 409),
  },
});

const listMembersRoute = createRoute({
  method: "get",
  path: "/{id}/members",
  tags,
  request: { params: orgIdParam },
  responses: {
    200: json(z.object({ members: z.array(memberView), limit: z.number().nullable() }), "Members"),
    ...errorResponses(401, 403, 404),
  },
});

const removeMemberRoute = createRoute({
  method: "delete",
  path: "/{id}/members/{memberId}",
  tags,
  request: { params: memberIdParam },
  responses: {
    200: json(z.object({ removed: z.literal(true), member: memberView }), "Removed"),
    ...errorResponses(401, 403, 404, 409),
  },
});

const memberKeyRoute = createRoute({
  method: "post",
  path: "/{id}/members/{memberId}/key",
  tags,
  summary: "Issue a new API key for a member (shown once); the member's earlier keys stop working at once",
  request: { params: memberIdParam },
  responses: {
    200: json(memberWithKey, "Member with the new key"),
    ...errorResponses(401, 403, 404),
  },
});

const changeRoleRoute = createRoute({
  method: "patch",
  path: "/{id}/members/{memberId}",
  tags,
  summary:
    "Give a member another role (admin, developer or viewer); the member's key acts with it from the next request. The last admin cannot be demoted",
  request: {
    params: memberIdParam,
    // The role is checked by the use case, so an unknown one answers UNKNOWN_ROLE with the roles there are.
    body: jsonBody(
      z
        .object({
          role: z
            .string()
            .max(32)
            .openapi({ enum: [...memberRole.options] }),
        })
        .strict(),
    ),
  },
  responses: { 200: json(memberView, "Member with the new role"), ...errorResponses(400, 401, 403, 404, 409) },
});

export const memberRoutes = router()
  .openapi(addMemberRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { member, apiKey } = await addMember(c.get("deps"), { orgId: id, ...c.req.valid("json") });
    return c.json({ ...memberOut(member), apiKey }, 201);
  })
  .openapi(listMembersRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { members, limit } = await listOrgMembers(c.get("deps"), { orgId: id });
    return c.json({ members: members.map(memberOut), limit }, 200);
  })
  .openapi(changeRoleRoute, async (c) => {
    const { id, memberId } = c.req.valid("param");
    const member = await changeMemberRole(c.get("deps"), { orgId: id, memberId, role: c.req.valid("json").role });
    return c.json(memberOut(member), 200);
  })
  .openapi(removeMemberRoute, async (c) => {
    const { id, memberId } = c.req.valid("param");
    const member = await removeMember(c.get("deps"), { orgId: id, memberId });
    return c.json({ removed: true as const, member: memberOut(member) }, 200);
  })
  .openapi(memberKeyRoute, async (c) => {
    const { id, memberId } = c.req.valid("param");
    const { member, apiKey } = await issueMemberKey(c.get("deps"), { orgId: id, memberId });
    return c.json({ ...memberOut(member), apiKey }, 200);
  });

// Reputation-sharing settings (supplement §4): what other organizations see of this one's agents, and whose agents
// it accepts into its own views.
import { createRoute } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { getOrganization } from "../../use-cases/organizations/get-organization.ts";
import { updateSharing } from "../../use-cases/organizations/update-sharing.ts";
import { orgIdParam, sharingPatch, sharingView } from "./schemas.ts";
import { sharingOut } from "./views.ts";

const tags = ["organizations"];

const getSharingRoute = createRoute({
  method: "get",
  path: "/{id}/reputation-sharing",
  tags,
  request: { params: orgIdParam },
  responses: { 200: json(sharingView, "Settings"), ...errorResponses(401, 403, 404) },
});

const patchSharingRoute = createRoute({
  method: "patch",
  path: "/{id}/reputation-sharing",
  tags,
  request: { params: orgIdParam, body: jsonBody(sharingPatch) },
  responses: { 200: json(sharingView, "Settings"), ...errorResponses(400, 401, 403, 404) },
});

export const sharingRoutes = router()
  .openapi(getSharingRoute, async (c) => {
    return c.json(sharingOut(await getOrganization(c.get("deps"), c.req.valid("param"))), 200);
  })
  .openapi(patchSharingRoute, async (c) => {
    const org = await updateSharing(c.get("deps"), { orgId: c.req.valid("param").id, ...c.req.valid("json") });
    return c.json(sharingOut(org), 200);
  });

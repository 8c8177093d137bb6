// The organization's agents: registration under the organization (its plan's agent quota) and the directory
// search over its agents and those of organizations sharing reputation with it.
import { createRoute, z } from "@hono/zod-openapi";
import { clientKey } from "../../lib/client-ip.ts";
import { idempotencyKeyOf } from "../../lib/idempotency.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody, pageQuery } from "../../lib/schemas.ts";
import { registerAgent } from "../../use-cases/agents/register-agent.ts";
import { getOrganization } from "../../use-cases/organizations/get-organization.ts";
import { orgDirectoryPage } from "../../use-cases/organizations/org-directory.ts";
import { reserveOrgAgentSlot } from "../../use-cases/organizations/reserve-agent-slot.ts";
import { orgSiteOrigin } from "../../use-cases/organizations/site-origin.ts";
import { registerResponse, registrationAnswer } from "../agents/register.ts";
import { agentListItem, registerBody } from "../agents/schemas.ts";
import { toListItem } from "../agents/views.ts";
import { orgIdParam } from "./schemas.ts";

const tags = ["organizations"];

const registerOrgAgentRoute = createRoute({
  method: "post",
  path: "/{id}/agents",
  tags,
  summary: "Register an agent under the organization (x-api-key + x-api-secret, or admin token)",
  request: { params: orgIdParam, body: jsonBody(registerBody) },
  responses: {
    201: json(registerResponse.extend({ organization: z.string() }), "Registered"),
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

const searchRoute = createRoute({
  method: "get",
  path: "/{id}/agents/search",
  tags,
  summary:
    "The organization's agents and those of organizations sharing reputation with it, filtered by capabilities (all of, comma separated) and domain",
  request: {
    params: orgIdParam,
    query: z.object({
      capabilities: z.string().max(1000).optional(),
      domain: z.string().max(100).optional(),
      ...pageQuery(),
    }),
  },
  responses: {
    200: json(
      z.object({
        agents: z.array(
          agentListItem.extend({
            organization: z
              .string()
              .openapi({ description: "the agent's organization (this one, or one sharing with it)" }),
            reputation: z.number(),
          }),
        ),
        total: z.number(),
      }),
      "Agents",
    ),
    ...errorResponses(400, 401, 403, 404),
  },
});

export const orgAgentRoutes = router()
  .openapi(registerOrgAgentRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    await getOrganization(deps, { id });
    const registered = await registerAgent(deps, c.req.valid("json"), {
      ip: clientKey(c, deps.env.TRUST_PROXY),
      orgId: id,
      idempotencyKey: idempotencyKeyOf(c),
      beforeInsert: (client) => reserveOrgAgentSlot(client, id),
    });
    return c.json({ ...registrationAnswer(deps, registered, await orgSiteOrigin(deps, id)), organization: id }, 201);
  })
  .openapi(searchRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const q = c.req.valid("query");
    await getOrganization(deps, { id });
    const found = await orgDirectoryPage(deps, {
      orgId: id,
      capabilities: (q.capabilities ?? "")
        .split(",")
        .map((s) => s.trim().toLowerCase())
        .filter(Boolean),
      domain: q.domain?.trim().toLowerCase() || null,
      limit: q.limit,
      offset: (q.page - 1) * q.limit,
    });
    const agents = found.agents.map(({ record, orgId }) => ({
      ...toListItem(record),
      organization: orgId,
      reputation: record.score,
    }));
    return c.json({ agents, total: found.total }, 200);
  });

import { createRoute, z } from "@hono/zod-openapi";
import { errors } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, pageQuery, pagination, paginationOf } from "../../lib/schemas.ts";
import { findAgentDetail, listAgents } from "../../stores/agents.ts";
import { requireAgent } from "../../use-cases/guards.ts";
import { agentDetail, agentIdParam, agentListItem } from "./schemas.ts";
import { toDetail, toListItem } from "./views.ts";

const listRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["agents"],
  request: {
    query: z.object(pageQuery()),
  },
  responses: { 200: json(z.object({ agents: z.array(agentListItem), pagination }), "Agents"), ...errorResponses(400) },
});

const detailRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["agents"],
  request: { params: agentIdParam },
  responses: { 200: json(agentDetail, "Agent"), ...errorResponses(404) },
});

const cardRoute = createRoute({
  method: "get",
  path: "/{id}/agent-card.json",
  tags: ["agents"],
  summary: "A2A agent card",
  request: { params: agentIdParam },
  responses: { 200: json(z.record(z.string(), z.unknown()), "Agent card"), ...errorResponses(404) },
});

export const readRoutes = router()
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const { page, limit } = c.req.valid("query");
    // With an organization key the list holds that organization's agents only.
    const { agents, total } = await listAgents(deps, page, limit, c.get("org")?.id);
    return c.json({ agents: agents.map(toListItem), pagination: paginationOf(page, limit, total) }, 200);
  })
  .openapi(detailRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const [found, now, { minStake }] = await Promise.all([
      findAgentDetail(deps, id),
      chainClock(deps).now(),
      deps.params.current(),
    ]);
    if (!found) throw errors.agentNotFound(id);
    return c.json(toDetail(found.agent, now, minStake, found.slashes), 200);
  })
  .openapi(cardRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const agent = await requireAgent(deps, id);
    const base = deps.env.PUBLIC_URL;
    return c.json(
      {
        protocolVersion: "0.3.0",
        name: agent.profile.name,
        description: agent.profile.description,
        url: agent.profile.endpoints.a2a ?? agent.profile.endpoints.webhook ?? `${base}/api/agents/${id}`,
        version: "1.0.0",
        provider: { organization: "AgentHub", url: base },
        capabilities: { streaming: false, pushNotifications: Boolean(agent.profile.endpoints.webhook) },
        defaultInputModes: ["application/json"],
        defaultOutputModes: ["application/json"],
        skills: agent.profile.capabilities.map((cap) => ({
          id: cap,
          name: cap,
          tags: [...agent.profile.domains, ...agent.profile.tools],
        })),
        registrations: [
          {
            agentId: id,
            agentRegistry: `eip155:${deps.deployments.chainId}:${deps.deployments.contracts.AgentIdentity.address}`,
          },
        ],
        registrationFile: agent.metadataUri,
      },
      200,
    );
  });

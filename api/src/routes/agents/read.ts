import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, pageQuery, pagination, paginationOf } from "../../lib/schemas.ts";
import { listAgents } from "../../stores/agents.ts";
import { cachedAnswer, chainTimeAndMinStake } from "../../stores/read-cache.ts";
import { agentCard } from "../../use-cases/agents/agent-card.ts";
import { getAgent } from "../../use-cases/agents/get-agent.ts";
import { agentDetail, agentIdParam, agentListItem } from "./schemas.ts";
import { toDetail, toListItem } from "./views.ts";

const listRoute = createRoute({
  method: "get",
  path: "/",
  tags: ["agents"],
  middleware: [cachedAnswer()] as const,
  request: {
    query: z.object(pageQuery()),
  },
  responses: { 200: json(z.object({ agents: z.array(agentListItem), pagination }), "Agents"), ...errorResponses(400) },
});

const detailRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["agents"],
  middleware: [cachedAnswer(chainTimeAndMinStake)] as const,
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
    const { agent, now, minStake, slashes } = await getAgent(c.get("deps"), c.req.valid("param"));
    return c.json(toDetail(agent, now, minStake, slashes), 200);
  })
  .openapi(cardRoute, async (c) => c.json(await agentCard(c.get("deps"), c.req.valid("param")), 200));

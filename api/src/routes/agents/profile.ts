import { createRoute } from "@hono/zod-openapi";
import { isAddressEqual } from "viem";
import { registrationFile } from "../../domain/registration-file.ts";
import { errors } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { findAgent, slashHistory } from "../../stores/agents.ts";
import { saveProfile, tokenUriIndexed } from "../../stores/profiles.ts";
import { emitOrgEvent } from "../../stores/webhook-outbox.ts";
import { publishProfile } from "../../use-cases/agents/publish-profile.ts";
import { requireAgent } from "../../use-cases/guards.ts";
import { agentDetail, agentIdParam, updateBody } from "./schemas.ts";
import { toDetail } from "./views.ts";

const route = createRoute({
  method: "patch",
  path: "/{id}",
  tags: ["agents"],
  summary: "Update the profile; signed (EIP-4361) by the identity token's owner",
  request: { params: agentIdParam, body: jsonBody(updateBody) },
  responses: {
    200: json(agentDetail, "Updated agent, on chain"),
    202: json(
      agentDetail,
      "Updated agent, saved; its token URI (ipfsHash) follows within the coalescing window (header x-profile-publish: coalesced)",
    ),
    ...errorResponses(400, 401, 403, 404, 429),
  },
});

export const profileRoutes = router().openapi(route, async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  const { message, signature, ...changes } = c.req.valid("json");
  const agent = await requireAgent(deps, id);
  const signer = await verifySignedAction(
    deps,
    { message, signature },
    { action: "update-profile", kind: "agent", id },
  );
  if (!isAddressEqual(signer, agent.owner as `0x${string}`)) {
    throw errors.forbidden("NOT_AGENT_OWNER", `only the identity token's owner ${agent.owner} may update this agent`);
  }
  const current = agent.profile;
  const next = {
    name: changes.name ?? current.name,
    description: changes.description ?? current.description,
    capabilities: changes.capabilities ?? current.capabilities,
    programmingLangs: changes.programmingLangs ?? current.programmingLangs,
    domains: changes.domains ?? current.domains,
    tools: changes.tools ?? current.tools,
    endpoints: (changes.endpoints as Record<string, string> | undefined) ?? current.endpoints,
    image: changes.image ?? current.image ?? undefined,
  };
  const identity = deps.deployments.contracts.AgentIdentity.address;
  const stored = await deps.ipfs.putJson(registrationFile(next, identity, deps.deployments.chainId, id));
  // One relayed setTokenURI per agent per window, within daily quotas (429 before anything is saved).
  const published =
    `ipfs://${stored.cid}` === agent.metadataUri ? undefined : await publishProfile(deps, id, agent.owner, stored.uri);
  await saveProfile(deps, id, { ...next, endpoints: next.endpoints ?? {} }, stored.cid);
  if (published && !published.sent) {
    // Coalesced: saved and served now; on chain within PROFILE_COALESCE_SECONDS, together with later updates.
    const updated = (await findAgent(deps, id))!;
    const [now, slashes, { minStake }] = await Promise.all([
      chainClock(deps).now(),
      slashHistory(deps, id),
      deps.params.current(),
    ]);
    c.header("x-profile-publish", "coalesced");
    await emitOrgEvent(deps, "agent.updated", id, { agentId: id, name: next.name, changed: Object.keys(changes) });
    return c.json(toDetail(updated, now, minStake, slashes), 202);
  }
  await waitForIndexer(
    `profile of agent ${id}`,
    async () => (await tokenUriIndexed(deps, id, stored.uri)) || undefined,
    deps.env.INDEXER_WAIT_MS,
  );
  const updated = (await findAgent(deps, id))!;
  await emitOrgEvent(deps, "agent.updated", id, { agentId: id, name: next.name, changed: Object.keys(changes) });
  const [now, slashes, { minStake }] = await Promise.all([
    chainClock(deps).now(),
    slashHistory(deps, id),
    deps.params.current(),
  ]);
  return c.json(toDetail(updated, now, minStake, slashes), 200);
});

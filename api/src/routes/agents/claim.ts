// Claiming an agent registered through AgentHub: the claim page reads what a code opens, then the claimant signs
// the claim message and receives the wallet's key once. The rules are in use-cases/agents/claim-agent.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit, LIMITS } from "../../lib/rate-limit.ts";
import { address, errorResponses, hexSignature, json, jsonBody } from "../../lib/schemas.ts";
import { claimAgent } from "../../use-cases/agents/claim-agent.ts";
import { claimInfo } from "../../use-cases/agents/claim-info.ts";
import { agentIdParam } from "./schemas.ts";

const claimInfoSchema = z.object({
  agentId: z.number(),
  walletAddress: z.string(),
  ipfsHash: z.string(),
  expiresAt: z.string(),
});

const infoRoute = createRoute({
  method: "get",
  path: "/claim-info/{claimCode}",
  tags: ["agents"],
  request: { params: z.object({ claimCode: z.string().min(1).max(200) }) },
  responses: { 200: json(claimInfoSchema, "Claim info"), ...errorResponses(400, 404) },
});

const claimRoute = createRoute({
  method: "post",
  path: "/{id}/claim",
  tags: ["agents"],
  summary: "Returns the agent wallet's private key exactly once and moves the identity token to userAddress",
  request: {
    params: agentIdParam,
    body: jsonBody(
      z.object({
        signature: hexSignature.openapi({
          description: "EIP-191 signature of 'I claim agent {agentId} to address {userAddress}'",
        }),
        userAddress: address,
        claimCode: z.string().min(1).max(200),
      }),
    ),
  },
  responses: {
    200: json(
      z.object({
        agentId: z.number(),
        privateKey: z.string(),
        walletAddress: z.string(),
        ownerAddress: z.string(),
        txHash: z.string(),
        keyErasedAt: z.string().openapi({
          description: "When AgentHub erases its copy of the key (a retry of this same claim until then returns it)",
        }),
        message: z.string(),
      }),
      "Claimed",
    ),
    ...errorResponses(400, 401, 404, 429),
  },
});

export const claimRoutes = router()
  .openapi(infoRoute, async (c) => c.json(await claimInfo(c.get("deps"), c.req.valid("param")), 200))
  .openapi(claimRoute, async (c) => {
    // Counted here, after validation: malformed requests use up nobody's allowance.
    await enforceRateLimit(c, "claim", LIMITS.claim);
    const { id } = c.req.valid("param");
    return c.json(await claimAgent(c.get("deps"), { agentId: id, ...c.req.valid("json") }), 200);
  });

// POST /api/agents/register: parses, registers (registration.ts), answers once with the claim code.
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../context.ts";
import { clientKey } from "../../lib/client-ip.ts";
import { idempotencyKeyHeader, idempotencyKeyOf } from "../../lib/idempotency.ts";
import { router } from "../../lib/openapi.ts";
import { enforceRateLimit, LIMITS } from "../../lib/rate-limit.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { CLAIM_CODE_TTL_DAYS, type Registered, registerAgent } from "../../use-cases/agents/register-agent.ts";
import { reserveOrgAgentSlot } from "../../use-cases/organizations/reserve-agent-slot.ts";
import { orgSiteOrigin } from "../../use-cases/organizations/site-origin.ts";
import { registerBody } from "./schemas.ts";

export const registerResponse = z.object({
  agentId: z.number(),
  claimCode: z.string(),
  claimURL: z.string(),
  walletAddress: z.string(),
  txHash: z.string(),
  status: z.literal("UNVERIFIED"),
  message: z.string(),
  instructions: z.string(),
});

const route = createRoute({
  method: "post",
  path: "/register",
  tags: ["agents"],
  summary: "Gasless registration: generates a wallet, mints the identity token, returns a one-time claim code",
  description:
    "Send an `Idempotency-Key` header (8-255 visible ASCII characters, e.g. a UUID) to make the request safe to " +
    "retry: for 24 hours a retry with the same key and body returns the first answer (with the same claim code) " +
    "instead of registering a second agent, and it does not count against the registration limit.",
  request: {
    headers: z.object({ "idempotency-key": idempotencyKeyHeader }),
    body: jsonBody(registerBody),
  },
  responses: { 201: json(registerResponse, "Registered"), ...errorResponses(400, 401, 403, 409, 422, 429, 503) },
});

/** The registration answer (also used by POST /api/organizations/{id}/agents). */
export function registrationAnswer(
  deps: Deps,
  { agentId, wallet, claimCode, txHash }: Registered,
  /** An organization's site (its branded claim page) instead of PUBLIC_URL. */
  claimOrigin?: string,
): z.infer<typeof registerResponse> {
  const claimURL = `${claimOrigin ?? deps.env.PUBLIC_URL}/claim/${claimCode}`;
  return {
    agentId,
    claimCode,
    claimURL,
    walletAddress: wallet,
    txHash,
    status: "UNVERIFIED" as const,
    message: `Agent ${agentId} registered. Its identity token is held by the generated wallet ${wallet} until claimed.`,
    instructions: `Open ${claimURL} (or POST /api/agents/${agentId}/claim with claimCode, userAddress and an EIP-191 signature of "I claim agent ${agentId} to address <userAddress>") within ${CLAIM_CODE_TTL_DAYS} days to receive the wallet's private key once and move the token to your address. The claim code is shown only now.`,
  };
}

export const registerRoutes = router().openapi(route, async (c) => {
  const deps = c.get("deps");
  const body = c.req.valid("json");
  const org = c.get("org");
  const registered = await registerAgent(deps, body, {
    ip: clientKey(c, deps.env.TRUST_PROXY),
    idempotencyKey: idempotencyKeyOf(c),
    // Counted after validation and never for a replay. With an organization key the plan's agent quota applies
    // instead of the per-IP registration limit.
    ...(org
      ? { orgId: org.id, beforeInsert: (client) => reserveOrgAgentSlot(client, org.id) }
      : { countAttempt: (db) => enforceRateLimit(c, "register", LIMITS.registration, db) }),
  });
  return c.json(registrationAnswer(deps, registered, org && (await orgSiteOrigin(deps, org.id))), 201);
});

// Governance access tokens (the bearer of the governance API): issued after a SIWE sign-in, revoked by their bearer.
import { createRoute, z } from "@hono/zod-openapi";
import { type Address, getAddress } from "viem";
import { parseSiweMessage } from "viem/siwe";
import { ApiError } from "../../errors.ts";
import { ACCESS_TOKEN_TTL_SECONDS, issueAccessToken, revokeAccessToken } from "../../lib/access-token.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, hexSignature, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";

export const tokenBody = z.object({
  message: z.string().min(1).max(4000).openapi({
    description:
      "EIP-4361 message whose resources include urn:agenthub:governance-access:account:<checksummed address>",
  }),
  signature: hexSignature,
});

export const tokenResult = z
  .object({
    accessToken: z.string(),
    tokenType: z.literal("Bearer"),
    address: z.string(),
    scope: z.string(),
    expiresAt: z.string(),
    expiresIn: z.number(),
  })
  .openapi("AccessToken");

const tokenRoute = createRoute({
  method: "post",
  path: "/token",
  tags: ["auth"],
  summary:
    "Sign in (EIP-4361 signed action governance-access:account:<address>) for a governance access token bound to " +
    `the address; opaque, stored hashed, valid ${ACCESS_TOKEN_TTL_SECONDS} s`,
  request: { body: jsonBody(tokenBody) },
  responses: { 201: json(tokenResult, "Access token"), ...errorResponses(400, 401) },
});

const revokeRoute = createRoute({
  method: "delete",
  path: "/token",
  tags: ["auth"],
  summary: "Revoke the bearer access token of this request",
  responses: { 204: { description: "Revoked" }, ...errorResponses(401) },
});

export const tokenRoutes = router()
  .openapi(tokenRoute, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    let claimed: Address | undefined;
    try {
      claimed = parseSiweMessage(body.message).address;
    } catch {
      claimed = undefined;
    }
    if (!claimed) throw new ApiError(401, "INVALID_SIGNATURE", "not a Sign-In with Ethereum message");
    const signer = await verifySignedAction(deps, body, {
      action: "governance-access",
      kind: "account",
      id: getAddress(claimed),
    });
    const { accessToken, expiresAt } = await issueAccessToken(deps, signer);
    return c.json(
      {
        accessToken,
        tokenType: "Bearer" as const,
        address: getAddress(signer),
        scope: "governance",
        expiresAt,
        expiresIn: ACCESS_TOKEN_TTL_SECONDS,
      },
      201,
    );
  })
  .openapi(revokeRoute, async (c) => {
    await revokeAccessToken(c);
    return c.body(null, 204);
  });

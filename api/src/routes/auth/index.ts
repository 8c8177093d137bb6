import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { issueNonce } from "../../lib/signed-action.ts";

const route = createRoute({
  method: "get",
  path: "/nonce",
  tags: ["auth"],
  summary: "A single-use nonce for a signed (EIP-4361) request; valid 10 minutes",
  responses: {
    200: {
      description: "Nonce",
      content: {
        "application/json": {
          schema: z.object({
            nonce: z.string(),
            expiresAt: z.string(),
            domain: z.string(),
            uri: z.string(),
            chainId: z.number(),
          }),
        },
      },
    },
  },
});

export const authRoutes = router().openapi(route, async (c) => {
  const deps = c.get("deps");
  const { nonce, expiresAt } = await issueNonce(deps);
  const url = new URL(deps.env.PUBLIC_URL);
  return c.json({ nonce, expiresAt, domain: url.host, uri: url.origin, chainId: deps.deployments.chainId }, 200);
});

// Moderation: an admin slashes an agent's stake on chain. The rules are in use-cases/moderation/.
import { createRoute, z } from "@hono/zod-openapi";
import { requireAdmin } from "../../auth/admin.ts";
import { ADMIN_TOKEN } from "../../auth/security-schemes.ts";
import { idempotencyKeyHeader, idempotencyKeyOf } from "../../lib/idempotency.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { slashAgent } from "../../use-cases/moderation/slash-agent.ts";
import { agentIdParam, agentStatus, slashEntry } from "../agents/schemas.ts";

const slashRoute = createRoute({
  method: "post",
  path: "/{id}/slash",
  tags: ["moderation"],
  summary:
    "Admin: slash a percentage of the agent's stake to the treasury (on chain; counts a strike: FROZEN, BANNED at the third; at most 10 moderation slashes per day, else 429 SLASH_RATE_LIMITED). Send an Idempotency-Key header: a retry with the same key answers the first slash instead of slashing twice",
  security: ADMIN_TOKEN,
  middleware: [requireAdmin] as const,
  request: {
    params: agentIdParam,
    headers: z.object({ "idempotency-key": idempotencyKeyHeader }),
    body: jsonBody(z.object({ reason: z.string().trim().min(1).max(500), percentage: z.number().gt(0).max(100) })),
  },
  responses: {
    200: json(
      z.object({
        success: z.boolean(),
        agentId: z.number(),
        slashedAmount: z.string(),
        percentage: z.number(),
        remainingStake: z.string(),
        status: agentStatus,
        txHash: z.string(),
        slashHistory: z.array(slashEntry),
      }),
      "Slashed",
    ),
    ...errorResponses(400, 401, 404, 422, 429),
  },
});

export const moderationRoutes = router().openapi(slashRoute, async (c) => {
  const { id } = c.req.valid("param");
  const { reason, percentage } = c.req.valid("json");
  const slashed = await slashAgent(c.get("deps"), {
    agentId: id,
    reason,
    percentage,
    idempotencyKey: idempotencyKeyOf(c),
  });
  return c.json(slashed, 200);
});

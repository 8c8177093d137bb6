// GET /api/time: "now" as this API process applies it to time rules (deadlines, validity windows, retake waits):
// the chain's latest block time through the API's short-lived clock cache. Clients date what the API judges by it;
// after a local chain's evm_increaseTime it shows when the API has caught up.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { json } from "../../lib/schemas.ts";
import { isoFromSeconds } from "../../lib/time.ts";

const route = createRoute({
  method: "get",
  path: "/",
  tags: ["system"],
  summary: "Chain time as this API applies it to time rules (cached for at most half a second)",
  responses: {
    200: json(
      z.object({
        unixSeconds: z.number().int().openapi({ description: "Latest block time (or the wall clock if later)" }),
        chainTime: z.string().openapi({ description: "The same instant, ISO-8601" }),
        blockNumber: z.string().openapi({ description: "The block it was read from" }),
      }),
      "The API's chain clock",
    ),
  },
});

export const timeRoutes = router().openapi(route, async (c) => {
  const { clock } = c.get("deps");
  const now = await clock.now();
  return c.json(
    { unixSeconds: Number(now), chainTime: isoFromSeconds(now), blockNumber: (await clock.blockNumber()).toString() },
    200,
  );
});

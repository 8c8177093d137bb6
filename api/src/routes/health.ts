import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../lib/openapi.ts";

const health = createRoute({
  method: "get",
  path: "/health",
  tags: ["system"],
  responses: {
    200: {
      description: "Service health",
      content: {
        "application/json": {
          schema: z.object({
            status: z.enum(["ok", "degraded"]),
            database: z.boolean(),
            chain: z.boolean(),
            indexedBlock: z.string().nullable(),
          }),
        },
      },
    },
  },
});

export const healthRoutes = router().openapi(health, async (c) => {
  const { pool, chain, env } = c.get("deps");
  const [database, block, indexed] = await Promise.all([
    pool.query("select 1").then(
      () => true,
      () => false,
    ),
    chain.getBlockNumber().then(
      (b) => b,
      () => null,
    ),
    pool
      // Ponder's checkpoint string is timestamp(10) | chain id(16) | block number(16) | ...
      .query<{ block: string }>(
        `select max(substring(latest_checkpoint from 27 for 16)::numeric)::text as block from ${env.INDEXER_SCHEMA}._ponder_checkpoint`,
      )
      .then(
        (r) => r.rows[0]?.block ?? null,
        () => null,
      ),
  ]);
  const ok = database && block !== null;
  return c.json(
    { status: ok ? ("ok" as const) : ("degraded" as const), database, chain: block !== null, indexedBlock: indexed },
    200,
  );
});

// GET /api/activity: the live feed of indexed run events, polled with a cursor (docs/decisions.md, "Activity feed").
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, pageLimit } from "../../lib/schemas.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { type ActivityPosition, type ActivityRow, activityPage } from "../../stores/activity.ts";
import { cachedAnswer } from "../../stores/read-cache.ts";

/** `<block>-<logIndex>`: a position in the chain's event order. */
const CURSOR = /^(\d{1,20})-(\d{1,6})$/;

const cursorOf = (block: string, logIndex: number) => `${block}-${logIndex}`;

const activityEvent = z
  .object({
    cursor: z.string().openapi({ description: "this event's position: pass it as `after` to get what came later" }),
    bountyId: z.number().nullable().openapi({ description: "the run's id in the runs API (null: not posted here)" }),
    onchainRunId: z.string(),
    kind: z.string().openapi({ example: "CLAIMED" }),
    state: z.string().openapi({ description: "the escrow's state after the event" }),
    agentId: z.number().nullable(),
    actor: z.string(),
    amount: z.string().nullable().openapi({ description: "USDC base units moved by the event, if any" }),
    txHash: z.string(),
    blockNumber: z.string(),
    timestamp: z.string(),
  })
  .openapi("ActivityEvent");

const route = createRoute({
  method: "get",
  path: "/",
  tags: ["activity"],
  summary: "Live activity: indexed run events of every run, newest first; poll with `after` (the newest cursor held)",
  middleware: [cachedAnswer()] as const,
  request: {
    query: z.object({
      after: z
        .string()
        .regex(CURSOR, "a cursor from an earlier answer: <block>-<logIndex>")
        .optional()
        .openapi({ description: "only events after this position (the oldest `limit` of them)" }),
      limit: pageLimit(20),
    }),
  },
  responses: {
    200: json(
      z.object({
        events: z.array(activityEvent),
        cursor: z
          .string()
          .nullable()
          .openapi({ description: "the newest position this answer reached: the next poll's `after`" }),
      }),
      "Activity",
    ),
    ...errorResponses(400),
  },
});

const toEvent = (row: ActivityRow) => ({
  cursor: cursorOf(row.block_number, row.log_index),
  bountyId: row.bounty_id === null ? null : Number(row.bounty_id),
  onchainRunId: row.run_id,
  kind: row.kind,
  state: row.state,
  agentId: row.agent_id === null ? null : Number(row.agent_id),
  actor: row.actor,
  amount: row.amount,
  txHash: row.tx_hash,
  blockNumber: row.block_number,
  timestamp: isoFromSeconds(BigInt(row.timestamp)),
});

export const activityRoutes = router().openapi(route, async (c) => {
  const { after, limit } = c.req.valid("query");
  const match = after ? CURSOR.exec(after) : null;
  const position: ActivityPosition | null = match ? { block: match[1]!, logIndex: Number(match[2]) } : null;
  const events = (await activityPage(c.get("deps"), position, limit)).map(toEvent);
  return c.json({ events, cursor: events[0]?.cursor ?? after ?? null }, 200);
});

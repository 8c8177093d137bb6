// Bounty events from the chain: claims and completions made on chain directly (an agent's smart account or 7702
// EOA, a poster's own wallet) never pass through the API routes that emit bounty.claimed / bounty.completed, so a
// periodic job reads the indexed run events after a cursor and queues the same events under the same dedupe keys.
// Whichever path queues an event first wins; the other writes nothing, so each is still emitted exactly once.
import type { Deps } from "../context.ts";
import { readCursor, writeCursor } from "../stores/job-cursors.ts";
import { queueBountyCompleted } from "../stores/run-orgs.ts";
import { bountyRunEventsAfter, latestRunEvent, type RunEventCursor } from "../stores/runs.ts";
import { queueOrgEvents } from "../stores/webhook-outbox.ts";

const CURSOR = "bounty-events";
const BATCH = 500;

/** One pass: queues the bounty events of run events indexed since the cursor (oldest first, BATCH at a time). */
export async function pollBountyEvents(deps: Pick<Deps, "pool" | "views" | "db">): Promise<{ events: number }> {
  const cursor = await readCursor<RunEventCursor>(deps, CURSOR);
  if (!cursor) {
    // First run: start at the chain's present (no backfill, so history is never announced again).
    await writeCursor(deps, CURSOR, await latestRunEvent(deps));
    return { events: 0 };
  }
  const rows = await bountyRunEventsAfter(deps, cursor, BATCH);
  for (const e of rows) {
    const bountyId = Number(e.run_id);
    const agentId = e.agent_id === null ? null : Number(e.agent_id);
    if (e.kind === "CLAIMED" && agentId !== null) {
      await queueOrgEvents(deps.pool, "bounty.claimed", [
        {
          agentId,
          data: { bountyId, agentId, reward: e.reward, txHash: e.tx_hash },
          dedupeKey: `bounty.claimed:${bountyId}:${e.tx_hash}`,
        },
      ]);
    } else if (e.kind !== "CLAIMED") {
      await queueBountyCompleted(deps.pool, { id: bountyId, agentId, reward: e.reward }, e.tx_hash);
    }
  }
  // Past the last event read; a crash before this line only makes the next pass queue (and drop) the same events.
  const last = rows.at(-1);
  if (last) await writeCursor(deps, CURSOR, { block: last.block_number, logIndex: last.log_index });
  return { events: rows.length };
}

// Bounty events from the chain: claims and completions made on chain directly (an agent's smart account or 7702
// EOA, a poster's own wallet) never pass through the API routes that emit bounty.claimed / bounty.completed, so a
// periodic job reads the indexed run events after a cursor and queues the same events under the same dedupe keys.
// Whichever path queues an event first wins; the other writes nothing, so each is still emitted exactly once.
import type { Deps } from "../context.ts";
import { queueBountyCompleted } from "../stores/run-orgs.ts";
import { queueOrgEvents } from "../stores/webhook-outbox.ts";

const CURSOR = "bounty-events";
const BATCH = 500;

interface Cursor {
  block: string;
  logIndex: number;
}

interface EventRow {
  run_id: string;
  kind: "CLAIMED" | "COMPLETED" | "DISPUTE_RESOLVED_FOR_AGENT";
  agent_id: string | null;
  tx_hash: string;
  block_number: string;
  log_index: number;
  reward: string;
}

async function saveCursor(deps: Pick<Deps, "pool">, cursor: Cursor) {
  await deps.pool.query(
    `insert into api.job_cursor (name, value, updated_at) values ($1, $2::jsonb, now())
     on conflict (name) do update set value = excluded.value, updated_at = now()`,
    [CURSOR, JSON.stringify(cursor)],
  );
}

/** One pass: queues the bounty events of run events indexed since the cursor (oldest first, BATCH at a time). */
export async function pollBountyEvents(deps: Pick<Deps, "pool" | "views">): Promise<{ events: number }> {
  const schema = deps.views.names;
  const cur = await deps.pool.query<{ value: Cursor }>("select value from api.job_cursor where name = $1", [CURSOR]);
  if (!cur.rows[0]) {
    // First run: start at the chain's present (no backfill, so history is never announced again).
    const last = await deps.pool.query<{ block: string | null; log_index: number | null }>(
      `select block_number::text block, log_index from ${schema.runEvent} order by block_number desc, log_index desc limit 1`,
    );
    await saveCursor(deps, { block: last.rows[0]?.block ?? "0", logIndex: last.rows[0]?.log_index ?? -1 });
    return { events: 0 };
  }
  const cursor = cur.rows[0].value;
  const { rows } = await deps.pool.query<EventRow>(
    `select r.id::text run_id, e.kind, e.agent_id::text, lower(e.tx_hash) tx_hash, e.block_number::text,
            e.log_index, cr.reward::text
       from ${schema.runEvent} e
       join api.run r on r.onchain_run_id = e.run_id
       join ${schema.run} cr on cr.id = e.run_id
      where e.kind in ('CLAIMED', 'COMPLETED', 'DISPUTE_RESOLVED_FOR_AGENT')
        and (e.block_number, e.log_index) > ($1::numeric, $2::int)
      order by e.block_number, e.log_index
      limit $3`,
    [cursor.block, cursor.logIndex, BATCH],
  );
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
  if (last) await saveCursor(deps, { block: last.block_number, logIndex: last.log_index });
  return { events: rows.length };
}

// The activity feed: indexed RunEscrow events of every run, by their position on chain (block, log index).
import type { Deps } from "../context.ts";
import { prepared } from "../db/prepared.ts";

export interface ActivityPosition {
  block: string;
  logIndex: number;
}

export interface ActivityRow {
  block_number: string;
  log_index: number;
  run_id: string;
  bounty_id: string | null;
  kind: string;
  state: string;
  agent_id: string | null;
  actor: string;
  amount: string | null;
  tx_hash: string;
  timestamp: string;
}

const COLUMNS = `e.block_number::text, e.log_index, e.run_id::text, r.id::text bounty_id, e.kind, e.state,
            e.agent_id::text, e.actor, e.amount::text, e.tx_hash, e.timestamp::text`;

/**
 * Without `after`: the latest `limit` events. With it: the first `limit` events after that position (a client that
 * polls with the newest position it holds misses none). Newest first either way.
 */
export async function activityPage(
  deps: Pick<Deps, "pool" | "views">,
  after: ActivityPosition | null,
  limit: number,
): Promise<ActivityRow[]> {
  const schema = deps.views.names;
  if (after === null) {
    const { rows } = await deps.pool.query<ActivityRow>(
      prepared(
        `select ${COLUMNS}
           from ${schema.runEvent} e
           left join api.run r on r.onchain_run_id = e.run_id
          order by e.block_number desc, e.log_index desc
          limit $1`,
        [limit],
      ),
    );
    return rows;
  }
  const { rows } = await deps.pool.query<ActivityRow>(
    prepared(
      `select ${COLUMNS}
         from ${schema.runEvent} e
         left join api.run r on r.onchain_run_id = e.run_id
        where (e.block_number, e.log_index) > ($1::numeric, $2::int)
        order by e.block_number, e.log_index
        limit $3`,
      [after.block, after.logIndex, limit],
    ),
  );
  return rows.reverse();
}

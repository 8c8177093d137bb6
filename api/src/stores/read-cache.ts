// The read cache of the agent, reputation, run and list pages: answers kept per process until anything behind them
// changes (docs/decisions.md, "Read cache"). API tables announce changes by NOTIFY (migrations 195, 196, 198); the indexer's
// tables by Ponder's notification at each committed block, and by the indexer progress poller seeing a new block
// (a write that waited for its block then never reads an answer from before it). Requests made with an
// organization key bypass it: their connections see only what row-level security lets them see.
import type { Logger } from "pino";
import { currentOrgScope } from "../db/org-scope.ts";
import { ChangeFeedCache } from "./change-feed-cache.ts";

export const AGENT_READS_CHANNEL = "agenthub_agent_reads";

export type ReadCache = ChangeFeedCache<unknown>;

export function createReadCache(opts: {
  databaseUrl: string;
  /** The indexer's views schema: Ponder notifies `<schema>_live_query` when it commits a block. */
  indexerSchema: string;
  ttlMs: number;
  maxEntries: number;
  logger: Logger;
}): ReadCache {
  return new ChangeFeedCache<unknown>({
    label: "read cache",
    databaseUrl: opts.databaseUrl,
    ttlMs: opts.ttlMs,
    maxEntries: opts.maxEntries,
    logger: opts.logger,
    channels: [
      { name: AGENT_READS_CHANNEL },
      // The payload lists the tables the block wrote; `[]`: a block without writes.
      { name: `${opts.indexerSchema}_live_query`, ignore: (payload) => payload === "[]" },
    ],
  });
}

/** `load()`'s answer from the cache when no change came since it was stored, else loaded (and kept when found). */
export async function cachedRead<T>(
  deps: { reads: ReadCache },
  key: string,
  load: () => Promise<T | undefined>,
): Promise<T | undefined> {
  if (currentOrgScope() !== undefined) return load();
  const hit = deps.reads.get(key) as T | undefined;
  if (hit !== undefined) return hit;
  const token = deps.reads.token();
  const value = await load();
  if (value !== undefined) deps.reads.set(key, value, token);
  return value;
}

// The read cache of the agent, reputation, run and list pages: answers kept per process until anything behind them
// changes (docs/decisions.md, "Read cache"). API tables announce changes by NOTIFY (migrations 195, 196, 198); the indexer's
// tables by Ponder's notification at each committed block, and by the indexer progress poller seeing a new block
// (a write that waited for its block then never reads an answer from before it). Requests made with an
// organization key bypass it: their connections see only what row-level security lets them see.
import type { MiddlewareHandler } from "hono";
import type { Logger } from "pino";
import type { AppEnv, Deps } from "../context.ts";
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

// Whole answers of the read pages, serialised once: a hit costs no query, no shaping and no JSON.stringify (about
// 30 µs of a 20-item page, a sixth of its CPU). Only 200s of requests without an organization key are kept. Data is
// cached under it (cachedRead) only where the answer is re-made more often than the data changes: the agent page,
// whose answer is keyed by the chain second.
interface Answer {
  contentType: string;
  body: string;
}

/**
 * Route middleware: answers a GET from the cache when the same path and query were answered since the last change.
 * `stamp`: what the answer depends on besides stored data (chain time, protocol parameters), part of the key, so an
 * agent's status is judged at the current block even when its row did not change.
 */
export function cachedAnswer(stamp?: (deps: Deps) => Promise<string>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    if (c.get("org") || currentOrgScope() !== undefined) return next();
    const deps = c.get("deps");
    const url = c.req.url;
    // Path and query as sent (the origin varies with the Host of white-label sites; the answer does not).
    const key = `answer:${url.slice(url.indexOf("/", url.indexOf("//") + 2))}${stamp ? `#${await stamp(deps)}` : ""}`;
    const hit = deps.reads.get(key) as Answer | undefined;
    if (hit) return c.body(hit.body, 200, { "content-type": hit.contentType });
    const token = deps.reads.token();
    await next();
    if (c.res.status !== 200) return;
    const contentType = c.res.headers.get("content-type") ?? "application/json";
    deps.reads.set(key, { contentType, body: await c.res.clone().text() } satisfies Answer, token);
  };
}

/** The agent page's status is judged at chain time (whole seconds) against the current minimum stake. */
export async function chainTimeAndMinStake(deps: Deps): Promise<string> {
  const [now, { minStake }] = await Promise.all([deps.clock.now(), deps.params.current()]);
  return `${now}:${minStake}`;
}

// Per-process cache of search answers, emptied the moment api.agent_search or an organization's reputation-sharing
// settings change anywhere: triggers (033_agent_search_speed.sql, 183_search_cache_sharing.sql) send NOTIFY
// agenthub_search, and every API process LISTENs. While the
// listening connection is down nothing is cached or served from the cache, so an answer is never older than the
// last change this process has been told about (the notification travels in milliseconds).
import pg from "pg";
import type { Logger } from "pino";

export const SEARCH_CHANNEL = "agenthub_search";

export interface SearchCacheOptions {
  databaseUrl: string;
  ttlMs: number;
  maxEntries: number;
  logger: Logger;
}

export class SearchCache<V> {
  private readonly entries = new Map<string, { at: number; value: V }>();
  /** Bumped on every change notification (and on reconnect): answers computed under an older one are dropped. */
  private generation = 0;
  private listening = false;
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  hits = 0;
  misses = 0;

  constructor(private readonly options: SearchCacheOptions) {
    if (options.ttlMs > 0) void this.listen(0);
  }

  /** The generation to hand back to `set`, taken before the database is read. */
  token(): number {
    return this.generation;
  }

  get(key: string): V | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(key);
    if (entry && Date.now() - entry.at < this.options.ttlMs) {
      this.hits++;
      return entry.value;
    }
    if (entry) this.entries.delete(key);
    this.misses++;
    return undefined;
  }

  set(key: string, value: V, token: number): void {
    if (!this.listening || token !== this.generation) return;
    if (this.entries.size >= this.options.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
    this.entries.set(key, { at: Date.now(), value });
  }

  private invalidate(): void {
    this.generation++;
    this.entries.clear();
  }

  private async listen(attempt: number): Promise<void> {
    if (this.closed) return;
    const client = new pg.Client({ connectionString: this.options.databaseUrl });
    const lost = (error?: Error) => {
      if (this.client !== client) return;
      this.listening = false;
      this.client = undefined;
      this.invalidate();
      client.end().catch(() => {});
      if (this.closed) return;
      this.options.logger.warn({ err: error?.message }, "search cache: change feed lost, caching paused");
      this.retry = setTimeout(() => void this.listen(attempt + 1), Math.min(30_000, 500 * 2 ** attempt));
    };
    this.client = client;
    client.on("error", lost);
    client.on("end", () => lost());
    client.on("notification", () => this.invalidate());
    try {
      await client.connect();
      await client.query(`listen ${SEARCH_CHANNEL}`);
      if (this.closed || this.client !== client) return;
      // Anything cached before the feed was up may be stale.
      this.invalidate();
      this.listening = true;
      attempt = 0;
    } catch (error) {
      lost(error as Error);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.listening = false;
    clearTimeout(this.retry);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => {});
  }
}

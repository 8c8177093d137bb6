// Per-process answer cache emptied the moment the data behind it changes anywhere: writers send NOTIFY on a channel
// (statement-level triggers on the API's tables; Ponder's commit of each indexed block) and every API process
// LISTENs. While the listening connection is down nothing is cached or served from the cache, so an answer is never
// older than the last change this process has been told about (the notification travels in milliseconds). Entries
// also expire after `ttlMs`, the bound for changes no channel announces (Ponder's historical backfill).
import pg from "pg";
import type { Logger } from "pino";

export interface ChangeChannel {
  name: string;
  /** Notifications whose payload says nothing changed (e.g. Ponder's `[]` for a block without writes). */
  ignore?: (payload: string | undefined) => boolean;
}

export interface ChangeFeedCacheOptions {
  databaseUrl: string;
  channels: ChangeChannel[];
  ttlMs: number;
  maxEntries: number;
  logger: Logger;
  /** Names the cache in logs. */
  label: string;
}

export class ChangeFeedCache<V> {
  private readonly entries = new Map<string, { at: number; value: V }>();
  /** Bumped on every change notification (and on reconnect): answers computed under an older one are dropped. */
  private generation = 0;
  private listening = false;
  private client: pg.Client | undefined;
  private closed = false;
  private retry: NodeJS.Timeout | undefined;
  hits = 0;
  misses = 0;

  constructor(private readonly options: ChangeFeedCacheOptions) {
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

  /** Drops every answer, and every answer being computed: the data may have changed. */
  invalidate(): void {
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
      this.options.logger.warn({ err: error?.message }, `${this.options.label}: change feed lost, caching paused`);
      this.retry = setTimeout(() => void this.listen(attempt + 1), Math.min(30_000, 500 * 2 ** attempt));
    };
    this.client = client;
    client.on("error", lost);
    client.on("end", () => lost());
    client.on("notification", (n) => {
      const channel = this.options.channels.find((c) => c.name === n.channel);
      if (!channel?.ignore?.(n.payload)) this.invalidate();
    });
    try {
      await client.connect();
      for (const channel of this.options.channels)
        await client.query(`listen ${client.escapeIdentifier(channel.name)}`);
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

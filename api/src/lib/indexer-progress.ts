// How far the indexer has got, watched by one poller per process: a write that knows its transaction's block waits
// until the indexer has committed that block (Ponder commits blocks in order, so every event of the block is then
// readable) instead of each request polling its own rows. Waiting holds no pooled connection.
import type pg from "pg";

interface Waiter {
  block: bigint;
  resolve(indexed: boolean): void;
  timer: NodeJS.Timeout;
}

export class IndexerProgress {
  private indexed = -1n;
  private waiters: Waiter[] = [];
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private readonly advanced: (() => void)[] = [];

  constructor(
    private readonly pool: pg.Pool,
    /** The qualified name of Ponder's checkpoint view (deps.views.names.ponderCheckpoint). */
    private readonly checkpointView: string,
    private readonly intervalMs = 50,
  ) {}

  /** The highest block the indexer has committed (-1 before the first read). */
  get indexedBlock(): bigint {
    return this.indexed;
  }

  /** Calls `fn` whenever a read finds a higher indexed block (before any waiter for that block is resolved). */
  onAdvance(fn: () => void): void {
    this.advanced.push(fn);
  }

  /** Resolves true once `block` is indexed, false after `timeoutMs` (never rejects). */
  waitForBlock(block: bigint, timeoutMs: number): Promise<boolean> {
    if (this.indexed >= block) return Promise.resolve(true);
    return new Promise((resolve) => {
      const waiter: Waiter = {
        block,
        resolve,
        timer: setTimeout(() => {
          this.waiters = this.waiters.filter((w) => w !== waiter);
          resolve(false);
        }, timeoutMs),
      };
      this.waiters.push(waiter);
      this.schedule(0);
    });
  }

  /** Reads the indexer's checkpoint now (also used by readiness checks). */
  async refresh(): Promise<bigint> {
    // Ponder's checkpoint string is timestamp(10) | chain id(16) | block number(16) | ...
    const { rows } = await this.pool.query<{ block: string | null }>(
      `select max(substring(latest_checkpoint from 27 for 16)::numeric)::text as block
         from ${this.checkpointView}`,
    );
    const block = rows[0]?.block;
    if (block !== null && block !== undefined && BigInt(block) > this.indexed) {
      this.indexed = BigInt(block);
      for (const fn of this.advanced) fn();
    }
    return this.indexed;
  }

  close(): void {
    clearTimeout(this.timer);
    for (const w of this.waiters) {
      clearTimeout(w.timer);
      w.resolve(false);
    }
    this.waiters = [];
  }

  private schedule(delay: number): void {
    if (this.polling || this.timer) return;
    this.timer = setTimeout(() => void this.poll(), delay);
  }

  private async poll(): Promise<void> {
    this.timer = undefined;
    if (this.waiters.length === 0) return;
    this.polling = true;
    try {
      await this.refresh();
    } catch {
      /* the indexer's views may not exist yet; waiters time out on their own */
    } finally {
      this.polling = false;
    }
    const done = this.waiters.filter((w) => w.block <= this.indexed);
    this.waiters = this.waiters.filter((w) => w.block > this.indexed);
    for (const w of done) {
      clearTimeout(w.timer);
      w.resolve(true);
    }
    if (this.waiters.length > 0) this.schedule(this.intervalMs);
  }
}

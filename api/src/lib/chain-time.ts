import type { PublicClient } from "viem";

/**
 * "Now" for time-based rules is the chain's latest block time, not the wall clock: deadlines, timeouts and
 * the 30-day ladder then agree with the contracts (and local tests can move time with evm_increaseTime).
 */
export class ChainClock {
  private cached: { at: number; value: bigint; block: bigint } | undefined;
  /** The block read under way: concurrent callers share it (one getBlock per refresh, not one per request). */
  private reading: Promise<bigint> | undefined;

  constructor(
    private readonly client: PublicClient,
    private readonly ttlMs = 500,
  ) {}

  async now(): Promise<bigint> {
    return (this.fromCache() ?? (await this.refresh())).value;
  }

  /** The latest block's number, from the same short cache as {@link now}. */
  async blockNumber(): Promise<bigint> {
    return (this.fromCache() ?? (await this.refresh())).block;
  }

  /** Chain time read now, never from the short cache (checks right before a write the chain will judge). */
  fresh(): Promise<bigint> {
    return this.startRead();
  }

  /**
   * The cached block while it is younger than the TTL. In the window's last fifth a read starts in the background
   * (refresh ahead): under steady traffic the cache is renewed before it expires, so requests do not queue behind a
   * getBlock twice a second (that wait was in the agent page's p99). The bound is unchanged: never older than the TTL.
   */
  private fromCache(): { value: bigint; block: bigint } | undefined {
    const cached = this.cached;
    if (!cached) return undefined;
    const age = Date.now() - cached.at;
    if (age >= this.ttlMs) return undefined;
    if (age >= this.ttlMs * 0.8 && !this.reading) this.startRead().catch(() => {}); // a failure: the next caller reads
    return cached;
  }

  /** Joins the block read under way (the cache expired for every caller at once), else starts one. */
  private async refresh(): Promise<{ value: bigint; block: bigint }> {
    await (this.reading ?? this.startRead());
    return this.cached!;
  }

  private startRead(): Promise<bigint> {
    const reading = this.read().finally(() => {
      if (this.reading === reading) this.reading = undefined;
    });
    this.reading = reading;
    return reading;
  }

  private async read(): Promise<bigint> {
    const block = await this.client.getBlock({ blockTag: "latest" });
    // Between blocks, chain time still advances with the wall clock.
    const value =
      block.timestamp > BigInt(Math.floor(Date.now() / 1000)) ? block.timestamp : BigInt(Math.floor(Date.now() / 1000));
    // A slower read that started earlier never replaces a newer block.
    if (!this.cached || block.number >= this.cached.block) this.cached = { at: Date.now(), value, block: block.number };
    return value;
  }
}

/** The API's one clock (built in server.ts, held in Deps). */
export function chainClock(deps: { clock: ChainClock }): ChainClock {
  return deps.clock;
}

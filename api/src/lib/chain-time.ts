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
    if (this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached.value;
    return this.refresh();
  }

  /** The latest block's number, from the same short cache as {@link now}. */
  async blockNumber(): Promise<bigint> {
    if (this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached.block;
    await this.refresh();
    return this.cached!.block;
  }

  /** Chain time read now, never from the short cache (checks right before a write the chain will judge). */
  fresh(): Promise<bigint> {
    return this.startRead();
  }

  /** Joins the block read under way (the cache expired for every caller at once), else starts one. */
  private refresh(): Promise<bigint> {
    return this.reading ?? this.startRead();
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

import type { PublicClient } from "viem";

/**
 * "Now" for time-based rules is the chain's latest block time, not the wall clock: deadlines, timeouts and
 * the 30-day ladder then agree with the contracts (and local tests can move time with evm_increaseTime).
 */
export class ChainClock {
  private cached: { at: number; value: bigint } | undefined;

  constructor(
    private readonly client: PublicClient,
    private readonly ttlMs = 500,
  ) {}

  async now(): Promise<bigint> {
    if (this.cached && Date.now() - this.cached.at < this.ttlMs) return this.cached.value;
    const block = await this.client.getBlock({ blockTag: "latest" });
    // Between blocks, chain time still advances with the wall clock.
    const value =
      block.timestamp > BigInt(Math.floor(Date.now() / 1000)) ? block.timestamp : BigInt(Math.floor(Date.now() / 1000));
    this.cached = { at: Date.now(), value };
    return value;
  }
}

const clocks = new WeakMap<object, ChainClock>();
/** One clock per API instance (keyed by its deps object). */
export function chainClock(deps: { chain: PublicClient }): ChainClock {
  let clock = clocks.get(deps);
  if (!clock) {
    clock = new ChainClock(deps.chain);
    clocks.set(deps, clock);
  }
  return clock;
}

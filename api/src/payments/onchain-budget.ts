// Bounds the x402 signatures verified on chain (ERC-1271 / ERC-6492: an eth_call that may deploy and run the payer's
// account code) per payer and per period, in this process. A 65-byte ECDSA signature is recovered locally and never
// counts; everything cheap (recipient, amount, endpoint, format) is checked before a payment gets here.

export class OnchainVerificationBudget {
  private readonly recent = new Map<string, number[]>();

  constructor(
    /** Verifications allowed per payer within `windowMs`. */
    private readonly max: number,
    private readonly windowMs: number,
  ) {}

  /** Counts one verification for `payer`; false (and nothing counted) when its budget for the window is used up. */
  take(payer: string, now = Date.now()): boolean {
    const key = payer.toLowerCase();
    const since = now - this.windowMs;
    const times = (this.recent.get(key) ?? []).filter((t) => t > since);
    if (times.length >= this.max) {
      this.recent.set(key, times);
      return false;
    }
    times.push(now);
    this.recent.set(key, times);
    if (this.recent.size > 10_000) this.prune(since);
    return true;
  }

  /** Forgets payers with nothing in the window (the map stays bounded by the payers active in one window). */
  private prune(since: number): void {
    for (const [key, times] of this.recent) if (times.every((t) => t <= since)) this.recent.delete(key);
  }
}

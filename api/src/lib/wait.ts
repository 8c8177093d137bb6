import { apiError } from "../errors.ts";

/** Polls until the indexer reflects a write (bounded); the chain already has it, so a timeout is a 504 to retry. */
export async function waitForIndexer<T>(
  what: string,
  probe: () => Promise<T | undefined | null>,
  timeoutMs: number,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let delay = 25;
  while (true) {
    const value = await probe();
    if (value !== undefined && value !== null) return value;
    if (Date.now() > deadline) {
      throw apiError("INDEXER_LAGGING", `${what} is on chain but not indexed yet; retry shortly`);
    }
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 250);
  }
}

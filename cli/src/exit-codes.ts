// Exit codes scripts can rely on (documented in cli/README.md and `agenthub --help`).
import { AgentHubError } from "@agenthub/sdk";

export const EXIT = {
  /** Done. */
  OK: 0,
  /** A bug or an unexpected failure. */
  INTERNAL: 1,
  /** Bad arguments, a missing key or option: nothing was sent. */
  USAGE: 2,
  /** The API refused the request (4xx); the error code says why. Nothing changed. */
  REFUSED: 3,
  /** The API or the chain could not be reached or answered 5xx; nothing is known to have changed. Retry. */
  UNAVAILABLE: 4,
  /** Sent, outcome not known yet (TX_PENDING, INDEXER_LAGGING, PAYMENT_PENDING, RELAYER_TIMEOUT): check, then retry. */
  PENDING: 5,
  /** A transaction from your own wallet reverted or could not be sent. */
  CHAIN: 6,
} as const;

const PENDING = new Set(["TX_PENDING", "INDEXER_LAGGING", "PAYMENT_PENDING", "RELAYER_TIMEOUT"]);

export class UsageError extends Error {
  override readonly name = "UsageError";
}

export function exitCodeOf(error: unknown): number {
  if (error instanceof UsageError) return EXIT.USAGE;
  if (error instanceof AgentHubError) {
    if (PENDING.has(error.code)) return EXIT.PENDING;
    if (error.code === "TX_FAILED" && error.status === 0) return EXIT.CHAIN;
    if (error.code === "RPC_REQUIRED") return EXIT.USAGE;
    if (error.status >= 400 && error.status < 500) return EXIT.REFUSED;
    return EXIT.UNAVAILABLE;
  }
  const name = (error as { name?: string })?.name ?? "";
  // viem: a reverted or unsendable transaction, or an unreachable RPC.
  if (/ContractFunctionExecutionError|TransactionExecutionError|WaitForTransactionReceiptTimeoutError/.test(name)) {
    return EXIT.CHAIN;
  }
  if (/HttpRequestError|TimeoutError|FetchError/.test(name)) return EXIT.UNAVAILABLE;
  if (name === "KeystoreError" || name === "NoTerminalError") return EXIT.USAGE;
  return EXIT.INTERNAL;
}

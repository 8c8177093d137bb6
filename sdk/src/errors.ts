// Every API error answer is {"error": {"code", "message"}}; the SDK throws it as an AgentHubError whose `code` is
// the API's code (e.g. RUN_NOT_AVAILABLE, INVALID_SIGNATURE), so callers branch on codes, never on messages.

import type { components } from "./generated/openapi.ts";

/**
 * Every code the API answers with: its error catalogue (api/src/errors.ts), published as the `ErrorCode` enum of
 * its OpenAPI document and generated into the SDK's types by `pnpm run compile` (test/e2e/sdk.test.ts checks the
 * generated types against what the running API serves, so this list cannot drift from the server's).
 */
export type ApiErrorCode = components["schemas"]["ErrorCode"];

/** Codes the SDK itself raises before or instead of an API answer (status 0). */
export type ClientErrorCode =
  /** The API could not be reached. */
  | "NETWORK_ERROR"
  /** A flow that reads the chain was called without rpcUrl / publicClient. */
  | "RPC_REQUIRED"
  /** A transaction sent from the caller's own wallet reverted. */
  | "TX_FAILED"
  /** The deployment announces no such contract, or no price for a paid route. */
  | "UNKNOWN_CONTRACT"
  | "NOT_A_PAID_ROUTE"
  /** The API served a consent for another escrow, action, agent or deliverable: nothing was signed. */
  | "CONSENT_MISMATCH"
  /** The API answered something the flow cannot use. */
  | "UNEXPECTED_ANSWER";

export type KnownErrorCode = ApiErrorCode | ClientErrorCode;

/** A known code, or any other string the API may add (`string & {}` keeps editor completion of the known ones). */
export type ErrorCode = KnownErrorCode | (string & {});

/** Codes that mean "the write happened or may have; ask again" rather than "refused". */
const RETRYABLE = new Set<KnownErrorCode>([
  "TX_PENDING",
  "INDEXER_LAGGING",
  "RELAYER_TIMEOUT",
  "RELAYER_UNAVAILABLE",
  "SERVICE_BUSY",
  "RUN_BUSY",
  "PAYMENT_PENDING",
  "RATE_LIMITED",
]);

export class AgentHubError extends Error {
  override readonly name = "AgentHubError";
  constructor(
    /** HTTP status of the answer (0 when no answer came). */
    readonly status: number,
    readonly code: ErrorCode,
    message: string,
    /** The parsed answer body, when there was one. */
    readonly body?: unknown,
    /** Seconds from a Retry-After header. */
    readonly retryAfter?: number,
  ) {
    super(`${code}: ${message}`);
  }

  /** True for answers that invite the same request again (pending transaction, lagging indexer, busy service). */
  get retryable(): boolean {
    return RETRYABLE.has(this.code as KnownErrorCode);
  }

  /** An error the SDK raises itself (status 0): nothing from the API, or a check on the client side. */
  static client(code: KnownErrorCode, message: string): AgentHubError {
    return new AgentHubError(0, code, message);
  }

  /** Builds the error from an API answer (its `{"error": {code, message}}` body when present). */
  static fromResponse(response: Response, body: unknown): AgentHubError {
    const err = (body as { error?: { code?: unknown; message?: unknown } } | undefined)?.error;
    const code = typeof err?.code === "string" ? err.code : `HTTP_${response.status}`;
    const message = typeof err?.message === "string" ? err.message : `${response.status} ${response.statusText}`.trim();
    const retryAfter = Number(response.headers.get("retry-after") ?? Number.NaN);
    return new AgentHubError(
      response.status,
      code,
      message,
      body,
      Number.isFinite(retryAfter) ? retryAfter : undefined,
    );
  }
}

export function isAgentHubError(error: unknown, code?: ErrorCode): error is AgentHubError {
  return error instanceof AgentHubError && (code === undefined || error.code === code);
}

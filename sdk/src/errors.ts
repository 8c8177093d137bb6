// Every API error answer is {"error": {"code", "message"}}; the SDK throws it as an AgentHubError whose `code` is
// the API's code (e.g. RUN_NOT_AVAILABLE, INVALID_SIGNATURE), so callers branch on codes, never on messages.

/** Codes the API answers (README "Error codes"); any other string may appear as the API grows. */
export type KnownErrorCode =
  | "VALIDATION_ERROR"
  | "NOT_FOUND"
  | "PAYLOAD_TOO_LARGE"
  | "RATE_LIMITED"
  | "AGENT_NOT_FOUND"
  | "CLAIM_CODE_INVALID"
  | "CLAIM_ALREADY_USED"
  | "CLAIM_CODE_EXPIRED"
  | "KEY_UNAVAILABLE"
  | "INVALID_SIGNATURE"
  | "NOT_AGENT_OWNER"
  | "INSUFFICIENT_STAKE"
  | "AGENT_BANNED"
  | "WALLET_MISMATCH"
  | "TX_NOT_FOUND"
  | "TX_FAILED"
  | "NOT_A_STAKE"
  | "STAKE_AMOUNT_MISMATCH"
  | "TX_ALREADY_USED"
  | "RUN_NOT_FOUND"
  | "RUN_NOT_AVAILABLE"
  | "AGENT_FROZEN"
  | "AGENT_IS_POSTER"
  | "AGENT_FAILED_THIS_RUN"
  | "NOT_RUN_POSTER"
  | "NOT_RUN_AGENT"
  | "NOT_RUN_PARTY"
  | "INVALID_RUN_STATE"
  | "REVISIONS_EXHAUSTED"
  | "REVISIONS_REMAINING"
  | "TIMEOUT_NOT_REACHED"
  | "DEADLINE_PASSED"
  | "RUN_ALREADY_FUNDED"
  | "FUNDING_MISMATCH"
  | "INVALID_PERMIT"
  | "INSUFFICIENT_BALANCE"
  | "RUN_BUSY"
  | "ADMIN_AUTH_REQUIRED"
  | "TX_REVERTED"
  | "TX_PENDING"
  | "INDEXER_LAGGING"
  | "RELAYER_UNAVAILABLE"
  | "RELAYER_TIMEOUT"
  | "SERVICE_BUSY"
  | "RELAY_QUOTA_EXCEEDED"
  | "IDEMPOTENCY_KEY_REUSED"
  | "PAYMENT_REQUIRED"
  | "INVALID_PAYMENT"
  | "INSUFFICIENT_AMOUNT"
  | "INVALID_ENDPOINT"
  | "NONCE_REUSED"
  | "PAYMENT_PENDING"
  | "PAYMENT_SETTLEMENT_FAILED"
  | "ATTESTOR_NOT_AUTHORIZED"
  | "ATTESTATION_EXISTS"
  | "ACCESS_TOKEN_REQUIRED"
  | "INVALID_ACCESS_TOKEN"
  | "PROPOSAL_NOT_FOUND"
  | "INSUFFICIENT_VOTING_POWER"
  | "PROPOSAL_EXISTS"
  | "PROPOSAL_MISMATCH"
  | "PROPOSER_MISMATCH"
  | "VOTER_MISMATCH"
  | "PROPOSAL_NOT_ACTIVE"
  | "ALREADY_VOTED"
  | "NO_VOTING_POWER"
  | "INVALID_BALLOT_SIGNATURE"
  | "ORGANIZATION_NOT_FOUND"
  | "INVALID_API_KEY"
  | "INVALID_API_SECRET"
  | "API_SECRET_REQUIRED"
  | "AUTH_REQUIRED"
  | "ORGANIZATION_FORBIDDEN"
  | "PLAN_LIMIT_REACHED"
  | "WEBHOOK_NOT_FOUND"
  | "SUBSCRIPTION_NOT_FOUND"
  | "NOT_SUBSCRIPTION_POSTER"
  | "INVALID_SUBSCRIPTION_STATE"
  | "PAYMENT_MISMATCH"
  | "INTERNAL_ERROR";

/** A known code, or any other string the API may add (`string & {}` keeps editor completion of the known ones). */
export type ErrorCode = KnownErrorCode | (string & {});

/** Codes that mean "the write happened or may have; ask again" rather than "refused". */
const RETRYABLE = new Set<string>([
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
    return RETRYABLE.has(this.code);
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

// The one error catalogue: every error code the API answers with, its HTTP status and a default message. Every
// error answer has the spec's shape {"error": {"code": "SPEC_CODE", "message": "..."}} and is rendered by the one
// error boundary in app.ts. Throw `apiError("CODE", message?, { cause })`; api/test/errors.test.ts checks that
// every code thrown anywhere in api/src is listed here. A code answers with one status; the three codes that a
// second kind of request answers with another status carry it as `alt` (chosen with `{ alt: true }`).
import type { ContentfulStatusCode } from "hono/utils/http-status";

export interface CatalogueEntry {
  status: ContentfulStatusCode;
  message: string;
  /** The status this code has where `when` says (the only other one it ever answers with). */
  alt?: { status: ContentfulStatusCode; when: string };
}

export const ERRORS = {
  ACCESS_TOKEN_REQUIRED: { status: 401, message: "access token required" },
  ACCOUNT_BLOCKED: { status: 409, message: "the account is blocked by the token" },
  ADMIN_AUTH_REQUIRED: { status: 401, message: "admin auth required" },
  ADMIN_ONLY: { status: 403, message: "admin only" },
  AGENT_BANNED: { status: 403, message: "agent banned" },
  AGENT_FAILED_THIS_RUN: { status: 403, message: "agent failed this run" },
  AGENT_FROZEN: { status: 403, message: "agent frozen" },
  AGENT_IS_POSTER: { status: 403, message: "agent is poster" },
  AGENT_NOT_FOUND: { status: 404, message: "the agent does not exist" },
  ALREADY_CLAIMED: { status: 409, message: "already claimed" },
  ALREADY_VOTED: { status: 409, message: "already voted" },
  API_QUOTA_EXCEEDED: { status: 429, message: "the organization's API calls per month are used up" },
  API_SECRET_REQUIRED: { status: 401, message: "api secret required" },
  ARBITER_NOT_CONFIGURED: { status: 503, message: "no arbiter is configured" },
  ATTESTATION_EXISTS: { status: 409, message: "attestation exists" },
  ATTESTATION_NOT_FOUND: { status: 404, message: "attestation not found" },
  ATTESTOR_NOT_AUTHORIZED: { status: 403, message: "attestor not authorized" },
  AUTH_REQUIRED: { status: 401, message: "auth required" },
  AUTHORIZATION_USED: { status: 409, message: "the funding authorization was already used" },
  BOUNTY_MISMATCH: { status: 400, message: "bounty mismatch" },
  BOUNTY_NOT_FOUND: { status: 404, message: "bounty not found" },
  CID_NOT_FOUND: { status: 404, message: "cid not found" },
  CLAIM_ALREADY_USED: { status: 400, message: "claim already used" },
  CLAIM_CODE_EXPIRED: { status: 400, message: "claim code expired" },
  CLAIM_CODE_INVALID: { status: 404, message: "claim code invalid" },
  CONSENT_EXPIRED: { status: 400, message: "the consent has expired" },
  CONSENT_NONCE_USED: { status: 409, message: "the consent nonce was used" },
  CONSENT_SIGNER_MISMATCH: { status: 403, message: "the consent is signed by another party" },
  CONTRACT_PAUSED: {
    status: 503,
    message: "the contract is paused; try again later",
    alt: { status: 409, when: "a subscription change the paused SubscriptionVault refused" },
  },
  COVERAGE_LOCKED: {
    status: 409,
    message: "the coverage backs runs the agent holds, or a run it failed within the claim window",
  },
  COVERAGE_REQUIRED: { status: 403, message: "the run requires more insurance coverage" },
  COVER_TOO_HIGH: { status: 400, message: "the cover is above the escrow's bound (a multiple of the reward)" },
  COVER_PENDING: { status: 409, message: "the run's declared cover is not set on chain yet" },
  DEADLINE_PASSED: { status: 400, message: "deadline passed" },
  DNS_LOOKUP_FAILED: { status: 503, message: "dns lookup failed" },
  DNS_RECORD_NOT_FOUND: { status: 400, message: "dns record not found" },
  DOMAIN_ALREADY_VERIFIED: { status: 400, message: "domain already verified" },
  DOMAIN_CHANGED: { status: 409, message: "domain changed" },
  DOMAIN_NOT_CONFIGURED: { status: 400, message: "domain not configured" },
  DOMAIN_NOT_VERIFIED: { status: 400, message: "domain not verified" },
  DOMAIN_TAKEN: { status: 409, message: "domain taken" },
  DUPLICATE_REPORT: { status: 409, message: "duplicate report" },
  FORBIDDEN_ROLE: { status: 403, message: "the member's role does not allow this" },
  FUNDING_MISMATCH: { status: 400, message: "funding mismatch" },
  HTTP_ERROR: { status: 400, message: "http error" },
  IDEMPOTENCY_KEY_REUSED: { status: 422, message: "idempotency key reused" },
  INDEXER_LAGGING: { status: 504, message: "the indexer has not caught up yet; retry" },
  INSUFFICIENT_AMOUNT: { status: 402, message: "insufficient amount" },
  INSUFFICIENT_BALANCE: { status: 400, message: "insufficient balance" },
  INSUFFICIENT_COVERAGE: { status: 409, message: "insufficient coverage" },
  INSUFFICIENT_FUNDS: { status: 400, message: "insufficient funds" },
  INSUFFICIENT_STAKE: {
    status: 400,
    message: "insufficient stake",
    alt: { status: 403, when: "claiming a run: the agent's active stake is below the vault's minimum" },
  },
  INSUFFICIENT_VOTING_POWER: { status: 403, message: "insufficient voting power" },
  INTERNAL_ERROR: { status: 500, message: "internal error" },
  INVALID_ACCESS_TOKEN: { status: 401, message: "invalid access token" },
  INVALID_AMOUNT: { status: 400, message: "invalid amount" },
  INVALID_API_KEY: { status: 401, message: "invalid api key" },
  INVALID_API_SECRET: { status: 401, message: "invalid api secret" },
  INVALID_AUTHORIZATION: { status: 400, message: "invalid funding authorization" },
  INVALID_BALLOT_SIGNATURE: { status: 400, message: "invalid ballot signature" },
  INVALID_CADENCE: { status: 400, message: "invalid cadence" },
  INVALID_CATEGORY: { status: 400, message: "invalid category" },
  INVALID_CONSENT: {
    status: 400,
    message: "invalid consent",
    alt: { status: 403, when: "a run step: the RunConsent is not the party's signature" },
  },
  INVALID_ENDPOINT: { status: 400, message: "invalid endpoint" },
  INVALID_EVIDENCE: { status: 400, message: "invalid evidence" },
  INVALID_IDEMPOTENCY_KEY: { status: 400, message: "invalid idempotency key" },
  INVALID_PAYMENT: { status: 401, message: "invalid payment" },
  INVALID_PERMIT: { status: 400, message: "invalid permit" },
  INVALID_RATING: { status: 400, message: "invalid rating" },
  INVALID_REWARD: { status: 400, message: "invalid reward" },
  INVALID_RUN_STATE: { status: 409, message: "invalid run state" },
  INVALID_SIGNATURE: { status: 401, message: "the signature does not verify" },
  INVALID_SKILL_ATTEMPT: { status: 400, message: "invalid skill attempt" },
  INVALID_SORT_BY: { status: 400, message: "invalid sort by" },
  INVALID_START: { status: 400, message: "invalid start" },
  INVALID_SUBSCRIPTION_STATE: { status: 409, message: "invalid subscription state" },
  INVALID_WEBHOOK_SECRET: { status: 400, message: "invalid webhook secret" },
  INVALID_WEBHOOK_URL: { status: 400, message: "invalid webhook url" },
  INVALID_WHITELIST: { status: 400, message: "invalid whitelist" },
  ISOLATION_NOT_AVAILABLE: { status: 403, message: "isolation not available" },
  ISOLATION_UNAVAILABLE: { status: 422, message: "isolation unavailable" },
  KEY_UNAVAILABLE: { status: 400, message: "key unavailable" },
  LAST_ADMIN: { status: 409, message: "last admin" },
  LOSS_NOT_VERIFIED: { status: 409, message: "loss not verified" },
  MEMBER_EXISTS: { status: 409, message: "member exists" },
  MEMBER_NOT_FOUND: { status: 404, message: "member not found" },
  NONCE_REUSED: { status: 400, message: "nonce reused" },
  NOT_AGENT_OWNER: { status: 403, message: "not agent owner" },
  NOT_A_STAKE: { status: 400, message: "not a stake" },
  NOT_CREDITED_ACCOUNT: { status: 403, message: "only the credited account may withdraw" },
  NOT_FOUND: { status: 404, message: "no such route" },
  NOT_PROPOSER: { status: 403, message: "not the proposer" },
  NOT_RUN_AGENT: { status: 403, message: "not run agent" },
  NOT_RUN_PARTY: { status: 403, message: "not run party" },
  NOT_RUN_POSTER: { status: 403, message: "not run poster" },
  NOT_SUBSCRIPTION_POSTER: { status: 403, message: "not subscription poster" },
  NO_COVERAGE: { status: 409, message: "no coverage" },
  NO_COVER_DECLARED: { status: 409, message: "the run's poster declared no cover" },
  NO_CREDIT: { status: 409, message: "no credit to withdraw" },
  NO_FAILED_AGENT: { status: 409, message: "no failed agent" },
  NO_INSURED_LOSS: { status: 409, message: "no insured loss" },
  NO_PENDING_WITHDRAWAL: { status: 409, message: "no pending withdrawal" },
  NO_VOTING_POWER: { status: 403, message: "no voting power" },
  ORGANIZATION_FORBIDDEN: { status: 403, message: "organization forbidden" },
  ORGANIZATION_NOT_FOUND: { status: 404, message: "organization not found" },
  PAYLOAD_TOO_LARGE: { status: 413, message: "request body too large" },
  PAYMASTER_DISABLED: { status: 503, message: "paymaster disabled" },
  PAYMENT_MISMATCH: { status: 400, message: "payment mismatch" },
  PAYMENT_PENDING: { status: 504, message: "payment pending" },
  PAYMENT_QUOTA_EXCEEDED: { status: 429, message: "the organization's payments per day are used up" },
  PAYMENT_REQUIRED: { status: 402, message: "payment required" },
  PAYMENT_SETTLEMENT_FAILED: { status: 402, message: "payment settlement failed" },
  PLAN_LIMIT_REACHED: { status: 403, message: "plan limit reached" },
  PROPOSAL_EXISTS: { status: 409, message: "proposal exists" },
  PROPOSAL_MISMATCH: { status: 400, message: "proposal mismatch" },
  PROPOSAL_NOT_ACTIVE: { status: 409, message: "proposal not active" },
  PROPOSAL_NOT_FOUND: { status: 404, message: "proposal not found" },
  PROPOSAL_NOT_PENDING: { status: 409, message: "proposal not pending" },
  PROPOSER_MISMATCH: { status: 403, message: "proposer mismatch" },
  RATE_LIMITED: { status: 429, message: "too many requests; retry later" },
  RELAYER_TIMEOUT: { status: 504, message: "the transaction relayer did not answer in time; retry" },
  RELAYER_UNAVAILABLE: { status: 503, message: "the transaction relayer is unavailable" },
  RELAY_QUOTA_EXCEEDED: { status: 429, message: "relay quota exceeded" },
  REPORT_ALREADY_RESOLVED: { status: 409, message: "report already resolved" },
  REPORT_NOT_FOUND: { status: 404, message: "report not found" },
  REQUEST_IN_PROGRESS: { status: 409, message: "request in progress" },
  REVISIONS_EXHAUSTED: { status: 409, message: "revisions exhausted" },
  REVISIONS_REMAINING: { status: 409, message: "revisions remaining" },
  RUN_ALREADY_FUNDED: { status: 409, message: "run already funded" },
  RUN_BUSY: { status: 409, message: "run busy" },
  RUN_NOT_AVAILABLE: { status: 400, message: "run not available" },
  RUN_NOT_FOUND: { status: 404, message: "run not found" },
  RUN_NOT_OPEN: { status: 400, message: "run not open" },
  SAME_OWNER_ATTESTATION: { status: 400, message: "same owner attestation" },
  SELF_ATTESTATION: { status: 400, message: "self attestation" },
  SELF_REPORT: { status: 400, message: "self report" },
  SERVICE_BUSY: { status: 503, message: "the service is at capacity; retry shortly" },
  SKILL_RETAKE_TOO_SOON: { status: 429, message: "skill retake too soon" },
  SKILL_TEST_FAILED: { status: 400, message: "skill test failed" },
  SLASH_RATE_LIMITED: { status: 429, message: "slash rate limited" },
  STAKE_AMOUNT_MISMATCH: { status: 400, message: "stake amount mismatch" },
  STAKE_BELOW_BADGE_MINIMUM: { status: 400, message: "stake below badge minimum" },
  STAKE_LOCKED: { status: 409, message: "the stake backs runs the agent holds" },
  SUBDOMAIN_TAKEN: { status: 409, message: "subdomain taken" },
  SUBSCRIPTION_LIMIT_EXCEEDED: { status: 400, message: "the cadence exceeds the subscription limits" },
  SUBSCRIPTION_NOT_FOUND: { status: 404, message: "subscription not found" },
  TASK_REQUIRED: { status: 400, message: "the instructions name no task" },
  TIMEOUT_NOT_REACHED: { status: 409, message: "timeout not reached" },
  TOO_MANY_RUNS: { status: 409, message: "too many runs" },
  TX_ALREADY_USED: { status: 400, message: "the transaction was already recorded" },
  TX_FAILED: { status: 400, message: "the transaction reverted" },
  TX_NOT_FOUND: { status: 400, message: "no confirmed transaction with this hash" },
  TX_PENDING: { status: 504, message: "transaction not mined yet; retry the request" },
  TX_REVERTED: { status: 409, message: "tx reverted" },
  UNKNOWN_ROLE: { status: 400, message: "unknown role: use admin, developer or viewer" },
  UNKNOWN_SKILL: { status: 400, message: "unknown skill" },
  UNSUPPORTED_STATUS_FILTER: { status: 400, message: "unsupported status filter" },
  VALIDATION_ERROR: { status: 400, message: "invalid request" },
  VERIFICATION_EXPIRED: { status: 400, message: "verification expired" },
  VERIFICATION_FAILED: { status: 400, message: "verification failed" },
  VERIFICATION_NOT_FOUND: { status: 404, message: "verification not found" },
  VOTER_MISMATCH: { status: 403, message: "voter mismatch" },
  WALLET_MISMATCH: { status: 403, message: "wallet mismatch" },
  WEBHOOK_NOT_FOUND: { status: 404, message: "webhook not found" },
  WITHDRAWAL_NOT_READY: { status: 409, message: "withdrawal not ready" },
  WITHDRAWAL_PENDING: { status: 409, message: "withdrawal pending" },
  WRONG_VERIFICATION_TYPE: { status: 400, message: "wrong verification type" },
} as const satisfies Record<string, CatalogueEntry>;

export type ErrorCode = keyof typeof ERRORS;

export class ApiError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly code: string,
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Codes with a second, catalogued status. */
export type AltCode = {
  [K in ErrorCode]: (typeof ERRORS)[K] extends { alt: unknown } ? K : never;
}[ErrorCode];

export interface ApiErrorOptions<C extends ErrorCode> {
  /** The error that led here: logged by the boundary, never sent. */
  cause?: unknown;
  /** Answer with the code's catalogued `alt` status. */
  alt?: C extends AltCode ? boolean : never;
}

/** The error `code` with its catalogued status; `message` defaults to the catalogue's. */
export function apiError<C extends ErrorCode>(code: C, message?: string, options: ApiErrorOptions<C> = {}): ApiError {
  const entry: CatalogueEntry = ERRORS[code];
  const status = options.alt && entry.alt ? entry.alt.status : entry.status;
  return new ApiError(status, code, message ?? entry.message, { cause: options.cause });
}

export const errors = {
  validation: (message: string) => apiError("VALIDATION_ERROR", message),
  agentNotFound: (id: number | string) => apiError("AGENT_NOT_FOUND", `agent ${id} does not exist`),
};

export function errorBody(code: string, message: string) {
  return { error: { code, message } };
}

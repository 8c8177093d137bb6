// When each error code is answered, in words for docs/errors.md (generated from the catalogue in errors.ts by
// scripts/gen-errors-doc.ts; a code without an entry here is documented by its catalogue message). The catalogue is
// the list of codes; this file only explains them, so a new code can never be missing from the documentation.
import { type CatalogueEntry, ERRORS, type ErrorCode } from "./errors.ts";

export const ERROR_DOCS: Partial<Record<ErrorCode, string>> = {
  ACCESS_TOKEN_REQUIRED: "governance write without `Authorization: Bearer <ACCESS_TOKEN>`",
  ADMIN_AUTH_REQUIRED: "admin bearer token missing or wrong",
  ADMIN_ONLY: "plan change without the admin token",
  AGENT_BANNED: "banned agent",
  AGENT_FAILED_THIS_RUN: "claim by the agent that already failed this run (lost dispute)",
  AGENT_FROZEN: "claim by an agent slashed since its last stake",
  AGENT_IS_POSTER: "claim of a run by an agent its poster owns or is",
  AGENT_NOT_FOUND: "agent id does not exist",
  ALREADY_CLAIMED: "insurance claim already paid for this run (one payout per run)",
  ALREADY_VOTED: "the voter already voted on the proposal",
  API_QUOTA_EXCEEDED: "the organization's API calls for this UTC month are used up (plan or its own quota)",
  API_SECRET_REQUIRED: "operation needs `x-api-secret` next to the key",
  AUTH_REQUIRED: "organization operation without the admin token, an organization key or a member key",
  BOUNTY_MISMATCH: "a report's bounty was neither posted nor worked on by the subject",
  BOUNTY_NOT_FOUND: "a report's bountyId does not exist",
  CLAIM_ALREADY_USED: "agent already claimed",
  CLAIM_CODE_EXPIRED: "claim code older than 30 days",
  CLAIM_CODE_INVALID: "claim code unknown or not this agent's",
  COVER_TOO_HIGH:
    "draft (or funding) whose `requiredCoverage` is above `RunEscrow.maxCoverBps` of the reward (ten times it unless governance changed the bound)",
  COVER_PENDING:
    "claim-eligibility reason: the draft declares a cover not set on chain yet (`POST /api/runs/:id/claim` answers 400 `RUN_NOT_AVAILABLE`)",
  COVERAGE_LOCKED:
    "insurance withdrawal while the agent holds runs, or within 7 days of a run it failed (its posters may still claim)",
  COVERAGE_REQUIRED: "claim by an agent whose coverage not pending withdrawal is below the run's `requiredCoverage`",
  DEADLINE_PASSED: "run created or funded with its deadline behind chain time",
  DNS_LOOKUP_FAILED: "the DNS lookup itself failed; retry",
  DOMAIN_NOT_CONFIGURED: "domain/verify before POST /domain",
  DOMAIN_NOT_VERIFIED: "the TXT record with the token is not (yet) at `_agenthub-verify.<domain>`",
  DOMAIN_TAKEN: "the domain is active for another organization",
  DUPLICATE_REPORT: "the reporter already has a PENDING report about this agent in this category",
  FORBIDDEN_ROLE:
    "the credential's organization role may not call this route (viewer: read-only; developer: no settings, keys, members, domain or webhook changes)",
  FUNDING_MISMATCH: "the txHash's `RunCreated` is not this draft's (metadataUri, poster, reward)",
  INDEXER_LAGGING: "on chain but not indexed yet; retry",
  INSUFFICIENT_AMOUNT: "payment amount below the route's price",
  INSUFFICIENT_BALANCE: "poster's USDC below reward + fee",
  INSUFFICIENT_COVERAGE: "insurance withdrawal request above the agent's coverage",
  INSUFFICIENT_FUNDS: "the poster's wallet holds less USDC than the subscription amount or top-up",
  INSUFFICIENT_STAKE: "stake below the minimum (or nothing to slash)",
  INSUFFICIENT_VOTING_POWER: "proposer's delegated votes below the 100,000-token threshold",
  INTERNAL_ERROR: "bug; logged with the request id",
  INVALID_ACCESS_TOKEN: "access token unknown, expired or revoked",
  INVALID_AMOUNT: "insurance stake or withdrawal of 0",
  INVALID_API_KEY: "organization key unknown, malformed, or past its 7-day rotation grace",
  INVALID_API_SECRET: "`x-api-secret` is not the organization's secret",
  INVALID_BALLOT_SIGNATURE: "the EIP-712 ballot is not signed by the voter (or uses a stale nonce)",
  INVALID_CADENCE:
    "no frequency found, more than one frequency, duration or time of day, a duration shorter than one interval, a time of day with an hourly cadence or outside UTC (message has a hint)",
  INVALID_CATEGORY: "report category outside SPAM, FRAUD, MALICIOUS, IMPERSONATION, NON_DELIVERY, OTHER",
  INVALID_CONSENT:
    "the subscription's `consent` is not the poster's unexpired EIP-712 Subscribe signature over these terms, amount and vault nonce",
  INVALID_ENDPOINT: "payment signed for another endpoint",
  INVALID_EVIDENCE: "report evidence under 10 or over 4000 characters after trimming",
  INVALID_PAYMENT:
    "payment malformed, signature not the payer's, wrong recipient, x402 value not exact, balance short or outside its validity window",
  INVALID_PERMIT:
    "permit malformed, expired, or not the stated wallet's (or poster's) EIP-2612 signature for exactly that spender, amount (runs: reward + fee), current nonce and deadline",
  INVALID_REWARD: "rewardPerRun outside 10,000 .. 100,000,000,000 base units",
  INVALID_RUN_STATE: "run step not allowed in the run's current state",
  INVALID_SIGNATURE: "claim or signed-request signature invalid, expired, replayed or for another resource",
  INVALID_START:
    "the subscription's `startsAt` is not the cadence's first run as of the last 15 minutes (take it from a fresh preview)",
  INVALID_SUBSCRIPTION_STATE: "pause needs ACTIVE/EXHAUSTED, resume PAUSED, top-up and cancel ACTIVE/PAUSED/EXHAUSTED",
  INVALID_WEBHOOK_SECRET:
    "a `whsec_` secret that is not base64 of 24-64 bytes, or a secret that is not printable ASCII",
  INVALID_WEBHOOK_URL: "webhook URL carries credentials or targets a forbidden address",
  INVALID_WHITELIST: "reputation-sharing whitelist names an unknown organization or itself",
  ISOLATION_NOT_AVAILABLE: "isolation level not in the plan (`schema` needs growth or enterprise)",
  ISOLATION_UNAVAILABLE: '`isolation: "full"` (a dedicated database instance) is not available on this deployment',
  KEY_UNAVAILABLE: "the agent's key is gone",
  LAST_ADMIN: "removing the organization's last admin",
  LOSS_NOT_VERIFIED:
    "insurance claim after a rejection (the escrow refunded the poster; only timeouts and lost disputes pay)",
  MEMBER_EXISTS: "email already a member",
  MEMBER_NOT_FOUND: "member id does not exist in this organization",
  NO_COVER_DECLARED:
    "insurance claim on a run whose poster declared no cover (insurance pays agreed damages, never the refunded deposit)",
  NO_COVERAGE: "insurance claim against an agent without coverage",
  NO_FAILED_AGENT: "insurance claim on a run no agent has failed",
  NO_INSURED_LOSS: "the stake slashed to the poster already paid the run's declared cover",
  NO_PENDING_WITHDRAWAL: "insurance withdrawal `complete` without a request",
  NO_VOTING_POWER: "the voter had no delegated votes at the proposal's snapshot",
  NONCE_REUSED: "payment nonce already used by the payer (any process, any signature encoding)",
  NOT_A_STAKE: "transaction holds no deposit for this agent",
  NOT_AGENT_OWNER: "signer is not the identity token's owner (insurance withdrawal: nor the agent's wallet)",
  NOT_FOUND: "no such route",
  NOT_PROPOSER: "cancel by someone else than the proposal's proposer",
  NOT_RUN_AGENT: "run step needs the claiming agent's owner or wallet (start, submit)",
  NOT_RUN_PARTY: "dispute by neither the poster nor the claiming agent",
  NOT_RUN_POSTER:
    "run step needs the poster's signature (create, fund, approve, revision, reject, cancel, timeout-slash)",
  NOT_SUBSCRIPTION_POSTER: "subscription write not signed by its poster (create: by `posterAddress`)",
  ORGANIZATION_FORBIDDEN: "the key belongs to another organization",
  ORGANIZATION_NOT_FOUND: "organization id does not exist",
  PAYLOAD_TOO_LARGE: "body over 64 KiB",
  PAYMENT_MISMATCH: "a subscription's prepaid `amount` pays no run (below reward + fee)",
  PAYMENT_PENDING: "x402 settlement sent but not mined yet; send the same payment again",
  PAYMENT_QUOTA_EXCEEDED: "the organization's paid calls for this UTC day are used up",
  PAYMENT_REQUIRED: "paid route without a payment header (the answer carries the x402 requirements)",
  PAYMENT_SETTLEMENT_FAILED: "x402 transfer reverted; the paid answer is withheld",
  PLAN_LIMIT_REACHED: "plan quota reached (agents, members, webhooks) or feature not in the plan (custom domain)",
  PROPOSAL_EXISTS: "same targets, values, calldatas and description already proposed",
  PROPOSAL_MISMATCH: "the txHash did not create the proposal in the body",
  PROPOSAL_NOT_ACTIVE: "vote on a proposal that is not active",
  PROPOSAL_NOT_FOUND: "no such Governor proposal",
  PROPOSAL_NOT_PENDING: "cancel once voting opened (OpenZeppelin 5: the proposer cancels only pending proposals)",
  PROPOSER_MISMATCH: "the proposal's proposer is not the access token's address",
  RATE_LIMITED: "over a rate limit (`X-RateLimit-*`, `Retry-After`)",
  RELAYER_TIMEOUT: "the relayer did not answer within `RELAYER_TIMEOUT_MS`; retry the same request (idempotent)",
  RELAYER_UNAVAILABLE: "relayer unreachable",
  REPORT_ALREADY_RESOLVED: "the report was already confirmed or dismissed",
  REPORT_NOT_FOUND: "report id does not exist",
  REVISIONS_EXHAUSTED: "request-revision after all `maxRevisions`",
  REVISIONS_REMAINING: "reject before all `maxRevisions` are used",
  RUN_ALREADY_FUNDED: "fund on a run that is no longer a DRAFT",
  RUN_BUSY: "another request held the run for over 60 s; retry",
  RUN_NOT_AVAILABLE: "claim: the run is not OPEN or its deadline has passed",
  RUN_NOT_FOUND: "run id does not exist",
  SELF_REPORT: "the reporter is the subject agent's owner or wallet",
  STAKE_LOCKED: "a stake withdrawal would leave less than the open runs the agent holds lock",
  STAKE_AMOUNT_MISMATCH: "deposit smaller than the stated amount",
  SUBDOMAIN_TAKEN: "organization subdomain already in use",
  SUBSCRIPTION_LIMIT_EXCEEDED: "interval under 1 hour, over 366 runs or 366 days, task over 4,000 characters",
  SUBSCRIPTION_NOT_FOUND: "subscription id does not exist",
  TASK_REQUIRED: "subscription instructions hold a cadence but no task",
  TIMEOUT_NOT_REACHED: "timeout-slash earlier than 7 days (chain time) after the claim",
  TX_ALREADY_USED:
    "stake (agent or insurance), run-funding, subscription-payment or proposal transaction already recorded",
  TX_FAILED: "stake, run-funding, subscription-payment or proposal transaction unknown or reverted",
  TX_NOT_FOUND: "stake, run-funding, subscription-payment or proposal transaction unknown or reverted",
  TX_PENDING: "transaction sent but not mined yet; retry",
  TX_REVERTED: "the chain refused the transaction (custom error in the message)",
  UNSUPPORTED_STATUS_FILTER:
    "`?status=expired`: no proposal ever expires under OpenZeppelin 5's timelock (no grace period)",
  VALIDATION_ERROR: "malformed JSON, wrong types, out-of-range values, unknown fields",
  VOTER_MISMATCH: "vote `voter` is not the access token's address",
  WALLET_MISMATCH: "stake or run-claim wallet is not the agent's wallet/owner (or not the depositor / signer)",
  WEBHOOK_NOT_FOUND: "webhook id does not exist in this organization",
  WITHDRAWAL_NOT_READY: "insurance withdrawal `complete` before the 14-day cooldown (chain time) ends",
  WITHDRAWAL_PENDING: "insurance withdrawal request while one is pending",
};

/** docs/errors.md: every catalogued code, its HTTP status (and the other one where it has one) and when. */
export function renderErrorsDoc(): string {
  const rows = (Object.entries(ERRORS) as [ErrorCode, CatalogueEntry][])
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, entry]) => {
      const status = entry.alt ? `${entry.status} / ${entry.alt.status}` : `${entry.status}`;
      const alt = entry.alt ? ` (${entry.alt.status}: ${entry.alt.when})` : "";
      const when = (ERROR_DOCS[code] ?? entry.message).replaceAll("|", "\\|");
      return `| ${code} | ${status} | ${when}${alt} |`;
    });
  return [
    "# Error codes",
    "",
    "<!-- Generated from api/src/errors.ts and api/src/error-docs.ts by `pnpm run compile`; do not edit. -->",
    "",
    'Every code the API answers with, its HTTP status and when. Every error body is `{"error":{"code":"…","message":"…"}}`.',
    "",
    "| Code | HTTP | When |",
    "|---|---|---|",
    ...rows,
    "",
  ].join("\n");
}

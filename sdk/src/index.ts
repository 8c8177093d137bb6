// @agenthub/sdk: a typed client for the AgentHub API. Works in Node >= 20 and browsers (no Node-only imports).
export { AgentHub } from "./client.ts";
export type { AgentHubOptions, Progress } from "./core.ts";
export {
  AgentHubError,
  type ApiErrorCode,
  type ClientErrorCode,
  type ErrorCode,
  isAgentHubError,
  type KnownErrorCode,
} from "./errors.ts";
export type { AgentProfile, ProfileChanges } from "./features/agents.ts";
export type { AttestationInput } from "./features/attestations.ts";
export type { ProposalInput, Support } from "./features/governance.ts";
export type { PaidPath, PaymentReceipt, PayWith } from "./features/paid.ts";
export type { CreateRunInput, Deliverable } from "./features/runs.ts";
export type { SearchAnswer, SearchQuery } from "./features/search.ts";
export type { OwnWallet } from "./features/shared.ts";
export * from "./protocol/index.ts";
export { AgentHubReader } from "./read-client.ts";
export type { AgentHubReaderOptions } from "./read-core.ts";
export { type Signer, type SignerLike, type TypedDataSigner, toSigner } from "./signer.ts";
export type { Answer, Config, components, paths, Query, RequestBody, Run, RunState, Schemas } from "./types.ts";
export { signWebhook, verifyWebhook, type WebhookEvent, WebhookVerificationError } from "./webhooks.ts";
export { type Clock, ExactEip3009Scheme, type X402FetchOptions, x402Fetch } from "./x402.ts";

// @agenthub/sdk: a typed client for the AgentHub API. Works in Node >= 20 and browsers (no Node-only imports).
export { AgentHub } from "./client.ts";
export type { AgentHubOptions, Progress } from "./core.ts";
export type { AgentProfile, ProfileChanges } from "./features/agents.ts";
export type { AttestationInput } from "./features/attestations.ts";
export type { ProposalInput, Support } from "./features/governance.ts";
export type { PaidPath, PaymentReceipt, PayWith } from "./features/paid.ts";
export type { CreateRunInput, Deliverable } from "./features/runs.ts";
export type { SearchAnswer, SearchQuery } from "./features/search.ts";
export type { OwnWallet } from "./features/shared.ts";
export * from "./protocol/index.ts";
// Everything the read-only entry (@agenthub/sdk/read) offers: errors, the reader, the answer types.
export * from "./read.ts";
export { type Signer, type SignerLike, type TypedDataSigner, toSigner } from "./signer.ts";
export type { RequestBody } from "./types.ts";
export { signWebhook, verifyWebhook, type WebhookEvent, WebhookVerificationError } from "./webhooks.ts";
export { type Clock, ExactEip3009Scheme, type X402FetchOptions, x402Fetch } from "./x402.ts";

// AgentHub's signed protocols (no HTTP): EIP-712 types and typed data, payment schemes, the signed-action message.
// The API verifies with them and the SDK signs with them (re-exported as @agenthub/sdk/protocol, and bundled into
// the published SDK by its build), so neither depends on the other. Only viem may be imported here.
export { claimMessage } from "./claim.ts";
export { ballotTypedData, GOVERNOR_EIP712_NAME, GOVERNOR_EIP712_VERSION } from "./governance.ts";
export {
  type PaymentRequest,
  type SignedPayment,
  SPEC_DOMAIN_NAME,
  SPEC_DOMAIN_VERSION,
  SPEC_PAYMENT_FIELDS,
  SPEC_PAYMENT_TYPES,
  signPayment,
  signPaymentObject,
  specDomain,
  type TypedDataSigner,
} from "./payment.ts";
export { PERMIT_TYPES, permitTypedData } from "./permit.ts";
export {
  type ClaimTerms,
  consentNonceKey,
  deliverableHashOf,
  NO_TERMS,
  RUN_CONSENT_ACTIONS,
  RUN_CONSENT_TYPES,
  RUN_ESCROW_EIP712_NAME,
  RUN_ESCROW_EIP712_VERSION,
  type RunConsentAction,
  runConsentTypedData,
} from "./run-consent.ts";
export {
  RECEIVE_WITH_AUTHORIZATION_TYPES,
  RUN_FUNDING_TAG,
  type RunTerms,
  runFundingNonce,
  runFundingTypedData,
} from "./run-funding.ts";
export { actionResource, buildActionMessage, CHAIN_ID } from "./signed-action.ts";
export {
  SUBSCRIBE_TYPES,
  SUBSCRIPTION_VAULT_EIP712_NAME,
  SUBSCRIPTION_VAULT_EIP712_VERSION,
  type SubscriptionTerms,
  subscribeTypedData,
} from "./subscription.ts";

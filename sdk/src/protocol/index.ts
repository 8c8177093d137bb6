// Pure signing helpers of AgentHub's protocols (no HTTP): what the server verifies, built the same way here.
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
} from "./payment.ts";
export { PERMIT_TYPES, permitTypedData } from "./permit.ts";
export {
  consentNonceKey,
  deliverableHashOf,
  RUN_CONSENT_ACTIONS,
  RUN_CONSENT_TYPES,
  RUN_ESCROW_EIP712_NAME,
  RUN_ESCROW_EIP712_VERSION,
  type RunConsentAction,
  runConsentTypedData,
} from "./run-consent.ts";
export {
  INSURANCE_POOL_EIP712_NAME,
  INSURANCE_POOL_EIP712_VERSION,
  RUN_COVER_TYPES,
  runCoverTypedData,
} from "./run-cover.ts";
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

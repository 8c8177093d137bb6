// Payments: the spec's EIP-712 Payment (x-payment JSON) and standard x402 `exact` (EIP-3009 USDC), one gate.

export { PAID_PATHS, type PaidPath, PRICES, priceOf, type RoutePrice } from "../domain/prices.ts";
export { PaymentError, type PaymentErrorCode } from "./errors.ts";
export { type OpenPayment, PaymentGate } from "./gate.ts";
export { createPaymentGate, requirePayment } from "./middleware.ts";
export { paidRouteDocs } from "./openapi.ts";
export { specDomain, specPaymentType } from "./spec-scheme.ts";
export type { PaymentInfo, PaymentScheme } from "./types.ts";

// Payment failures carry the spec's status and code; the Hono adapter turns them into ApiErrors (plus x402 headers).
export type PaymentErrorCode =
  | "PAYMENT_REQUIRED"
  | "INVALID_PAYMENT"
  | "INSUFFICIENT_AMOUNT"
  | "INVALID_ENDPOINT"
  | "NONCE_REUSED"
  | "PAYMENT_PENDING"
  | "PAYMENT_SETTLEMENT_FAILED"
  | "RELAYER_UNAVAILABLE";

export class PaymentError extends Error {
  constructor(
    readonly status: 400 | 401 | 402 | 409 | 503 | 504,
    readonly code: PaymentErrorCode,
    message: string,
    /** x402 machine-readable reason (e.g. invalid_exact_evm_payload_signature), echoed in the 402 answer. */
    readonly x402Reason?: string,
  ) {
    super(message);
  }
}

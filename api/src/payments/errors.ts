// Payment failures carry the spec's code and its catalogued status; the Hono adapter answers them (plus x402 headers).
import type { ContentfulStatusCode } from "hono/utils/http-status";
import { ERRORS } from "../errors.ts";

export type PaymentErrorCode =
  | "PAYMENT_REQUIRED"
  | "INVALID_PAYMENT"
  | "INSUFFICIENT_AMOUNT"
  | "INVALID_ENDPOINT"
  | "NONCE_REUSED"
  | "PAYMENT_PENDING"
  | "PAYMENT_SETTLEMENT_FAILED"
  | "RELAYER_UNAVAILABLE"
  | "RATE_LIMITED";

/** A payment failure with its catalogued status (api/src/errors.ts). */
export class PaymentError extends Error {
  readonly status: ContentfulStatusCode;

  constructor(
    readonly code: PaymentErrorCode,
    message: string,
    /** x402 machine-readable reason (e.g. invalid_exact_evm_payload_signature), echoed in the 402 answer. */
    readonly x402Reason?: string,
  ) {
    super(message);
    this.status = ERRORS[code].status;
  }
}

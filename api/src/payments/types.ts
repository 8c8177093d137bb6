import type { Address, Hex } from "viem";

export type PaymentScheme = "agenthub" | "x402-exact";

/** What a paid handler learns about the payment: `c.get("payment")`. */
export interface PaymentInfo {
  payer: Address;
  scheme: PaymentScheme;
  /** Decimal string: 18-decimal units for "agenthub", USDC base units for "x402-exact". */
  amount: string;
  nonce: string;
}

/** Settlement facts of an x402 payment (the PAYMENT-RESPONSE header). */
export interface Settlement {
  txHash: Hex;
  network: string;
  payer: Address;
}

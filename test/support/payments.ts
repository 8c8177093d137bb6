// The SDK's spec-scheme payment signers with the amount defaulting to the route's price from GET /api/config.

import type { TypedDataSigner } from "@agenthub/sdk";
import {
  type PaymentRequest,
  type SignedPayment,
  signPaymentObject as sdkSignPaymentObject,
} from "@agenthub/sdk/protocol";
import { api } from "./stack.ts";

let prices: Promise<Record<string, { spec: string; usdc: string }>> | undefined;

/** The x402 prices the stack announces (GET /api/config -> prices). */
export function routePrices() {
  prices ??= api("GET", "/api/config").then((r) => r.body.prices);
  return prices;
}

type Request = Omit<PaymentRequest, "amount"> & { amount?: PaymentRequest["amount"] };

export async function signPaymentObject(signer: TypedDataSigner, req: Request): Promise<SignedPayment> {
  const amount = req.amount ?? (await routePrices())[req.endpoint]?.spec ?? "0";
  return sdkSignPaymentObject(signer, { ...req, amount });
}

export async function signPayment(signer: TypedDataSigner, req: Request): Promise<string> {
  return JSON.stringify(await signPaymentObject(signer, req));
}

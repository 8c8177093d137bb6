// Client side of the spec's payment scheme: sign an EIP-712 Payment with viem and put it in the x-payment header.
//   const header = await signPayment(account, { recipient, endpoint: "/api/intelligence/search" });
//   fetch(url, { method: "POST", headers: { "x-payment": header, "content-type": "application/json" }, body });
// Standard x402 clients (@x402/fetch) need nothing from here: they read the 402 answer and pay in USDC.
import type { Address, Hex, LocalAccount } from "viem";
import { type PaidPath, PRICES } from "../payments/prices.ts";
import { SPEC_PAYMENT_TYPES, specDomain } from "../payments/spec-scheme.ts";

export interface PaymentRequest {
  /** The platform recipient (GET /api/config -> platformRecipient). */
  recipient: Address;
  /** The paid path, e.g. "/api/intelligence/search". */
  endpoint: PaidPath | string;
  /** 18-decimal units; defaults to the endpoint's price. */
  amount?: bigint | string;
  /** Unique per payer; defaults to a random UUID. */
  nonce?: string;
  chainId?: number;
}

export interface SignedPayment {
  payer: Address;
  recipient: Address;
  amount: string;
  endpoint: string;
  nonce: string;
  signature: Hex;
}

/** Signs a spec Payment; returns the x-payment object (JSON.stringify it into the header). */
export async function signPaymentObject(
  account: Pick<LocalAccount, "address" | "signTypedData">,
  req: PaymentRequest,
): Promise<SignedPayment> {
  const amount = BigInt(req.amount ?? (PRICES as Record<string, { spec: bigint }>)[req.endpoint]?.spec ?? 0n);
  const message = {
    payer: account.address,
    recipient: req.recipient,
    amount,
    endpoint: req.endpoint,
    nonce: req.nonce ?? crypto.randomUUID(),
  };
  const signature = await account.signTypedData({
    domain: specDomain(req.chainId ?? 84532),
    types: SPEC_PAYMENT_TYPES,
    primaryType: "Payment",
    message,
  });
  return { ...message, amount: amount.toString(), signature };
}

/** The x-payment header value for one paid request. */
export async function signPayment(
  account: Pick<LocalAccount, "address" | "signTypedData">,
  req: PaymentRequest,
): Promise<string> {
  return JSON.stringify(await signPaymentObject(account, req));
}

// The spec's own payment scheme: header `x-payment` = JSON {payer, recipient, amount, endpoint, nonce, signature},
// an EIP-712 `Payment` (domain "AgentHub x402", version "1", the chain id, zero verifying contract) signed by the
// payer. Nothing moves on chain; the service serves each (payer, nonce) once. The server verifies with these types.
//   const header = await signPayment(signer, { recipient, endpoint: "/api/intelligence/search", amount });
//   fetch(url, { method: "POST", headers: { "x-payment": header, "content-type": "application/json" }, body });
import { type Address, type Hex, type TypedDataDefinition, zeroAddress } from "viem";
import { CHAIN_ID } from "./signed-action.ts";

/** What signing a typed-data payment or ballot needs (a viem account, or the SDK's signer). */
export interface TypedDataSigner {
  readonly address: Address;
  signTypedData(parameters: TypedDataDefinition): Promise<Hex>;
}

export const SPEC_DOMAIN_NAME = "AgentHub x402";
export const SPEC_DOMAIN_VERSION = "1";

/** The `Payment` struct's fields, in signing order. */
export const SPEC_PAYMENT_FIELDS = [
  { name: "payer", type: "address" },
  { name: "recipient", type: "address" },
  { name: "amount", type: "uint256" },
  { name: "endpoint", type: "string" },
  { name: "nonce", type: "string" },
] as const;

/** viem `types` for signTypedData of the spec Payment. */
export const SPEC_PAYMENT_TYPES = { Payment: SPEC_PAYMENT_FIELDS } as const;

export function specDomain(chainId: number = CHAIN_ID) {
  return {
    name: SPEC_DOMAIN_NAME,
    version: SPEC_DOMAIN_VERSION,
    chainId,
    verifyingContract: zeroAddress as Address,
  } as const;
}

export interface PaymentRequest {
  /** The platform recipient (GET /api/config -> platformRecipient). */
  recipient: Address;
  /** The paid path, e.g. "/api/intelligence/search". */
  endpoint: string;
  /** 18-decimal dollar units (GET /api/config -> prices[endpoint].spec; 10^15 = $0.001). */
  amount: bigint | string;
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
export async function signPaymentObject(signer: TypedDataSigner, req: PaymentRequest): Promise<SignedPayment> {
  const amount = BigInt(req.amount);
  const message = {
    payer: signer.address,
    recipient: req.recipient,
    amount,
    endpoint: req.endpoint,
    nonce: req.nonce ?? globalThis.crypto.randomUUID(),
  };
  const signature = await signer.signTypedData({
    domain: specDomain(req.chainId ?? CHAIN_ID),
    types: SPEC_PAYMENT_TYPES,
    primaryType: "Payment",
    message,
  });
  return { ...message, amount: amount.toString(), signature };
}

/** The x-payment header value for one paid request. */
export async function signPayment(signer: TypedDataSigner, req: PaymentRequest): Promise<string> {
  return JSON.stringify(await signPaymentObject(signer, req));
}

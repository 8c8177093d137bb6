// The spec's own scheme: header x-payment = JSON {payer, recipient, amount, endpoint, nonce, signature}, an EIP-712
// `Payment` signed by the payer. Nothing moves on chain; the service records the payment once per (payer, nonce).
import { SPEC_DOMAIN_NAME, SPEC_DOMAIN_VERSION, SPEC_PAYMENT_FIELDS } from "@agenthub/common/protocol";
import { type Address, getAddress, type Hex, isAddress, zeroAddress } from "viem";
import { type Domain, type ParsedSignature, parseSignature, TypedStruct } from "./eip712.ts";
import { PaymentError } from "./errors.ts";

// The domain and struct come from the shared protocol (@agenthub/common/protocol, which the SDK re-exports), so
// client and server sign and verify the same thing.
export const specPaymentType = { name: "Payment", fields: SPEC_PAYMENT_FIELDS } as const;

export function specDomain(chainId: number): Domain {
  return { name: SPEC_DOMAIN_NAME, version: SPEC_DOMAIN_VERSION, chainId, verifyingContract: zeroAddress };
}

const structs = new Map<number, TypedStruct>();
export function specPaymentStruct(chainId: number): TypedStruct {
  let s = structs.get(chainId);
  if (!s) {
    s = new TypedStruct(specDomain(chainId), specPaymentType);
    structs.set(chainId, s);
  }
  return s;
}

export interface SpecPayment {
  payer: Address;
  recipient: Address;
  amount: bigint;
  endpoint: string;
  nonce: string;
  signature: Hex;
  parsed: ParsedSignature;
}

const MAX_NONCE = 128;
const MAX_ENDPOINT = 256;
const UINT = /^\d{1,78}$/;

const invalid = (message: string) => new PaymentError("INVALID_PAYMENT", message);

/** Parses the x-payment JSON. Anything malformed is INVALID_PAYMENT (401), per the spec's check order. */
export function parseSpecPayment(header: string): SpecPayment {
  let raw: unknown;
  try {
    raw = JSON.parse(header);
  } catch {
    throw invalid("x-payment is not valid JSON");
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) throw invalid("x-payment must be a JSON object");
  const p = raw as Record<string, unknown>;
  for (const key of ["payer", "recipient"] as const) {
    if (typeof p[key] !== "string" || !isAddress(p[key] as string, { strict: false }))
      throw invalid(`x-payment.${key} must be an address`);
  }
  let amount: bigint;
  if (typeof p.amount === "string" && UINT.test(p.amount)) amount = BigInt(p.amount);
  else if (typeof p.amount === "number" && Number.isSafeInteger(p.amount) && p.amount >= 0) amount = BigInt(p.amount);
  else throw invalid("x-payment.amount must be an unsigned integer string");
  if (amount >= 1n << 256n) throw invalid("x-payment.amount exceeds uint256");
  if (typeof p.endpoint !== "string" || p.endpoint.length === 0 || p.endpoint.length > MAX_ENDPOINT)
    throw invalid(`x-payment.endpoint must be a path of at most ${MAX_ENDPOINT} characters`);
  if (typeof p.nonce !== "string" || p.nonce.length === 0 || p.nonce.length > MAX_NONCE)
    throw invalid(`x-payment.nonce must be a string of 1-${MAX_NONCE} characters`);
  if (typeof p.signature !== "string") throw invalid("x-payment.signature must be a hex string");
  let parsed: ParsedSignature;
  try {
    parsed = parseSignature(p.signature);
  } catch (error) {
    throw invalid(`x-payment.signature: ${(error as Error).message}`);
  }
  return {
    payer: getAddress(p.payer as string),
    recipient: getAddress(p.recipient as string),
    amount,
    endpoint: p.endpoint,
    nonce: p.nonce,
    signature: p.signature as Hex,
    parsed,
  };
}

/** The message fields as signed (viem `signTypedData({message})` shape). */
export function specMessage(p: Pick<SpecPayment, "payer" | "recipient" | "amount" | "endpoint" | "nonce">) {
  return { payer: p.payer, recipient: p.recipient, amount: p.amount, endpoint: p.endpoint, nonce: p.nonce };
}

export interface SpecRules {
  chainId: number;
  recipient: Address;
  /** Minimum amount for the called endpoint. */
  price: bigint;
  /** The called endpoint (request path). */
  endpoint: string;
}

/**
 * Checks in the order, after the signature (checked by the caller, possibly off-thread):
 * recipient (401 INVALID_PAYMENT), amount (402 INSUFFICIENT_AMOUNT), endpoint (400 INVALID_ENDPOINT).
 * The (payer, nonce) uniqueness is the store's job (400 NONCE_REUSED).
 */
export function checkSpecRules(p: SpecPayment, rules: SpecRules): void {
  if (p.recipient.toLowerCase() !== rules.recipient.toLowerCase())
    throw invalid(`x-payment.recipient must be the platform recipient ${getAddress(rules.recipient)}`);
  if (p.amount < rules.price)
    throw new PaymentError(
      "INSUFFICIENT_AMOUNT",
      `amount ${p.amount} is below the price ${rules.price} of ${rules.endpoint}`,
    );
  if (p.endpoint !== rules.endpoint)
    throw new PaymentError("INVALID_ENDPOINT", `payment is for ${p.endpoint}, not ${rules.endpoint}`);
}

// Standard x402 `exact` scheme on EVM (EIP-3009 transferWithAuthorization on USDC), v1 (X-PAYMENT) and v2
// (PAYMENT-SIGNATURE), per the x402 specification. Header codecs and protocol types come from @x402/core; the
// verification runs here on chain time and the settlement goes through the relayer (see docs/decisions.md).
import type {
  PaymentPayload,
  PaymentRequired,
  PaymentRequirements,
  PaymentRequirementsV1,
  SettleResponse,
} from "@x402/core/types";
import { type Address, getAddress, type Hex, isAddress } from "viem";
import type { RoutePrice } from "../domain/prices.ts";
import { type Domain, type ParsedSignature, parseSignature, TypedStruct } from "./eip712.ts";
import { PaymentError } from "./errors.ts";

export const X402_SCHEME = "exact";
/** CAIP-2 id of chain 84532 (Base Sepolia; the local chain uses the same id). */
export const X402_NETWORK = "eip155:84532";
/** x402 v1 network name of chain 84532. */
export const X402_NETWORK_V1 = "base-sepolia";
/** How long a client's authorization should stay valid (x402 `maxTimeoutSeconds`). */
export const MAX_TIMEOUT_SECONDS = 300;
/** Settlement must still be possible this long after verification (the reference facilitator uses 6 s). */
export const VALID_BEFORE_MARGIN = 6n;

export const transferWithAuthorizationType = {
  name: "TransferWithAuthorization",
  fields: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;

/** viem `types` for signTypedData of an EIP-3009 authorization. */
export const AUTHORIZATION_TYPES = { TransferWithAuthorization: transferWithAuthorizationType.fields } as const;

export interface Asset {
  address: Address;
  /** EIP-712 domain name and version of the token (USDC / 2). */
  name: string;
  version: string;
  chainId: number;
}

export interface Offer {
  asset: Asset;
  payTo: Address;
  price: RoutePrice;
  /** Absolute URL of the paid resource. */
  resourceUrl: string;
}

export function requirementsV2(o: Offer): PaymentRequirements {
  return {
    scheme: X402_SCHEME,
    network: X402_NETWORK,
    asset: o.asset.address,
    amount: o.price.usdc.toString(),
    payTo: o.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    extra: { name: o.asset.name, version: o.asset.version },
  };
}

export function requirementsV1(o: Offer): PaymentRequirementsV1 {
  return {
    scheme: X402_SCHEME,
    network: X402_NETWORK_V1 as PaymentRequirementsV1["network"],
    maxAmountRequired: o.price.usdc.toString(),
    resource: o.resourceUrl,
    description: o.price.description,
    mimeType: "application/json",
    outputSchema: {},
    payTo: o.payTo,
    maxTimeoutSeconds: MAX_TIMEOUT_SECONDS,
    asset: o.asset.address,
    extra: { name: o.asset.name, version: o.asset.version },
  };
}

/** The v2 PAYMENT-REQUIRED object (base64 JSON in the header of every 402 answer). */
export function paymentRequired(o: Offer, error: string): PaymentRequired {
  return {
    x402Version: 2,
    error,
    resource: { url: o.resourceUrl, description: o.price.description, mimeType: "application/json" },
    accepts: [requirementsV2(o)],
  };
}

export interface Authorization {
  from: Address;
  to: Address;
  value: bigint;
  validAfter: bigint;
  validBefore: bigint;
  nonce: Hex;
}

export interface ExactPayment {
  x402Version: 1 | 2;
  authorization: Authorization;
  signature: Hex;
  /** Null for ERC-1271 / ERC-6492 (non-65-byte) signatures, verified on chain instead. */
  parsed: ParsedSignature | null;
  /** The raw payload as received (kept with the payment record). */
  raw: Record<string, unknown>;
}

const invalid = (reason: string, message: string) => new PaymentError("INVALID_PAYMENT", message, reason);
const UINT = /^\d{1,78}$/;

/** Decodes a base64 x402 header (X-PAYMENT or PAYMENT-SIGNATURE) without trusting any of it yet. */
export function decodeX402Header(header: string): Record<string, unknown> {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(header.trim(), "base64").toString("utf8"));
  } catch {
    throw invalid("invalid_payload", "payment header is neither spec JSON nor base64 x402 JSON");
  }
  if (!decoded || typeof decoded !== "object" || Array.isArray(decoded))
    throw invalid("invalid_payload", "x402 payment payload must be a JSON object");
  return decoded as Record<string, unknown>;
}

/**
 * Checks the payload against what this route accepts, in the spec's order: payload and signature (401
 * INVALID_PAYMENT), recipient (401), amount below the price (402 INSUFFICIENT_AMOUNT; `exact` also refuses more),
 * resource (400 INVALID_ENDPOINT, when a v2 payload names one). Signature recovery is the caller's (`verifySigner`).
 */
export function parseExactPayment(raw: Record<string, unknown>, offer: Offer): ExactPayment {
  const version = raw.x402Version;
  if (version !== 1 && version !== 2) throw invalid("invalid_x402_version", "x402Version must be 1 or 2");
  let scheme: unknown;
  let network: unknown;
  if (version === 1) {
    scheme = raw.scheme;
    network = raw.network;
  } else {
    const accepted = raw.accepted as Record<string, unknown> | undefined;
    if (!accepted || typeof accepted !== "object") throw invalid("invalid_payload", "x402 v2 payload lacks `accepted`");
    scheme = accepted.scheme;
    network = accepted.network;
    if (typeof accepted.asset !== "string" || accepted.asset.toLowerCase() !== offer.asset.address.toLowerCase())
      throw invalid("invalid_exact_evm_asset_mismatch", `asset must be ${offer.asset.address}`);
  }
  if (scheme !== X402_SCHEME) throw invalid("invalid_exact_evm_scheme", `scheme must be "${X402_SCHEME}"`);
  const expectedNetwork = version === 1 ? X402_NETWORK_V1 : X402_NETWORK;
  if (network !== expectedNetwork)
    throw invalid("invalid_exact_evm_network_mismatch", `network must be "${expectedNetwork}"`);

  const payload = raw.payload as Record<string, unknown> | undefined;
  const auth = payload?.authorization as Record<string, unknown> | undefined;
  if (!payload || typeof payload !== "object" || !auth || typeof auth !== "object")
    throw invalid("unsupported_payload_type", "payload must be an EIP-3009 {signature, authorization}");
  for (const key of ["from", "to"] as const)
    if (typeof auth[key] !== "string" || !isAddress(auth[key] as string, { strict: false }))
      throw invalid("invalid_payload", `authorization.${key} must be an address`);
  for (const key of ["value", "validAfter", "validBefore"] as const)
    if (typeof auth[key] !== "string" || !UINT.test(auth[key] as string))
      throw invalid("invalid_payload", `authorization.${key} must be an unsigned integer string`);
  if (typeof auth.nonce !== "string" || !/^0x[0-9a-fA-F]{64}$/.test(auth.nonce))
    throw invalid("invalid_payload", "authorization.nonce must be 32 bytes of hex");
  if (typeof payload.signature !== "string" || !/^0x([0-9a-fA-F]{2})+$/.test(payload.signature))
    throw invalid("invalid_exact_evm_failed_to_parse_signature", "payload.signature must be hex");

  const authorization: Authorization = {
    from: getAddress(auth.from as string),
    to: getAddress(auth.to as string),
    value: BigInt(auth.value as string),
    validAfter: BigInt(auth.validAfter as string),
    validBefore: BigInt(auth.validBefore as string),
    nonce: (auth.nonce as string).toLowerCase() as Hex,
  };
  let parsed: ParsedSignature | null = null;
  if (payload.signature.length === 132) {
    try {
      parsed = parseSignature(payload.signature);
    } catch (error) {
      throw invalid("invalid_exact_evm_failed_to_parse_signature", (error as Error).message);
    }
  }
  return { x402Version: version, authorization, signature: payload.signature as Hex, parsed, raw };
}

/** Recipient, amount and resource rules (after the signature). */
export function checkExactRules(p: ExactPayment, offer: Offer, calledPath: string): void {
  const a = p.authorization;
  if (a.to !== getAddress(offer.payTo))
    throw invalid("invalid_exact_evm_recipient_mismatch", `authorization.to must be ${getAddress(offer.payTo)}`);
  if (a.value < offer.price.usdc)
    throw new PaymentError(
      "INSUFFICIENT_AMOUNT",
      `value ${a.value} is below the price ${offer.price.usdc} (USDC base units)`,
      "invalid_exact_evm_payload_authorization_value",
    );
  if (a.value !== offer.price.usdc)
    throw invalid(
      "invalid_exact_evm_payload_authorization_value_mismatch",
      `the exact scheme takes exactly ${offer.price.usdc}, not ${a.value}`,
    );
  const resource = (p.raw.resource as { url?: unknown } | undefined)?.url;
  if (typeof resource === "string") {
    let path: string;
    try {
      path = new URL(resource).pathname;
    } catch {
      path = resource;
    }
    if (path !== calledPath)
      throw new PaymentError("INVALID_ENDPOINT", `payment is for ${path}, not ${calledPath}`, "invalid_resource");
  }
}

/** The validity window on chain time: validAfter <= now and validBefore >= now + margin. */
export function checkWindow(a: Authorization, now: bigint): void {
  if (a.validAfter > now)
    throw invalid(
      "invalid_exact_evm_payload_authorization_valid_after",
      `authorization valid only after ${a.validAfter}`,
    );
  if (a.validBefore < now + VALID_BEFORE_MARGIN)
    throw invalid("invalid_exact_evm_payload_authorization_valid_before", `authorization expired at ${a.validBefore}`);
}

const structs = new Map<string, TypedStruct>();
export function authorizationStruct(asset: Asset): TypedStruct {
  const key = `${asset.chainId}:${asset.address}:${asset.name}:${asset.version}`;
  let s = structs.get(key);
  if (!s) {
    const domain: Domain = {
      name: asset.name,
      version: asset.version,
      chainId: asset.chainId,
      verifyingContract: asset.address,
    };
    s = new TypedStruct(domain, transferWithAuthorizationType);
    structs.set(key, s);
  }
  return s;
}

export function settleResponse(tx: Hex, payer: Address, version: 1 | 2): SettleResponse {
  const network = (version === 1 ? X402_NETWORK_V1 : X402_NETWORK) as SettleResponse["network"];
  return { success: true, transaction: tx, network, payer };
}

export type { PaymentPayload };

// Webhook signing, two ways on every delivery:
// 1. the spec's (§6): HMAC-SHA256 over the raw payload text with the webhook's secret, hex encoded, sent as
//    `X-AgentHub-Signature: sha256=<hex>` (the event id and send time travel unsigned in X-AgentHub-Event-Id and
//    X-AgentHub-Timestamp; the payload itself carries id and timestamp);
// 2. Standard Webhooks (standardwebhooks.com): `webhook-id` (the event id, the same on every retry, for dedupe),
//    `webhook-timestamp` (unix seconds of this attempt) and `webhook-signature: v1,<base64 HMAC-SHA256 over
//    "id.timestamp.body">`, so receivers using any Standard Webhooks library also check freshness (5 minutes).
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const SIGNATURE_HEADER = "X-AgentHub-Signature";
export const EVENT_ID_HEADER = "X-AgentHub-Event-Id";
export const EVENT_HEADER = "X-AgentHub-Event";
export const TIMESTAMP_HEADER = "X-AgentHub-Timestamp";
export const DELIVERY_HEADER = "X-AgentHub-Delivery";

/** Hex HMAC-SHA256 of `body` under `secret`. */
export function signPayload(secret: string, body: string): string {
  return createHmac("sha256", secret).update(body, "utf8").digest("hex");
}

/** The header value: `sha256=<hex>`. */
export function signatureHeader(secret: string, body: string): string {
  return `sha256=${signPayload(secret, body)}`;
}

/** Receiver side: accepts `sha256=<hex>` or a bare hex signature; constant-time comparison. */
export function verifySignature(secret: string, body: string, received: string | null | undefined): boolean {
  if (!received) return false;
  const hex = received.trim().replace(/^sha256=/i, "");
  if (!/^[0-9a-f]{64}$/i.test(hex)) return false;
  const expected = Buffer.from(signPayload(secret, body), "hex");
  return timingSafeEqual(expected, Buffer.from(hex, "hex"));
}

export const STANDARD_ID_HEADER = "webhook-id";
export const STANDARD_TIMESTAMP_HEADER = "webhook-timestamp";
export const STANDARD_SIGNATURE_HEADER = "webhook-signature";

const WHSEC = "whsec_";
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** A generated webhook secret: whsec_ + 32 random bytes in standard base64 (the Standard Webhooks format). */
export const generateWebhookSecret = () => `${WHSEC}${randomBytes(32).toString("base64")}`;

/**
 * Why a secret given by the organization cannot be used, or null. `whsec_` secrets must be what the prefix claims
 * (base64 of 24-64 bytes, the Standard Webhooks range); any other secret is printable ASCII, and its bytes are the
 * Standard Webhooks key (receivers pass it in their library's "raw" format).
 */
export function webhookSecretProblem(secret: string): string | null {
  if (secret.startsWith(WHSEC)) {
    const b64 = secret.slice(WHSEC.length);
    const bytes = Buffer.from(b64, "base64");
    if (!BASE64.test(b64) || b64.length % 4 !== 0 || bytes.length < 24 || bytes.length > 64) {
      return "a whsec_ secret is whsec_ followed by the standard base64 of 24 to 64 random bytes";
    }
    return null;
  }
  return /^[\x20-\x7e]+$/.test(secret) ? null : "a secret is printable ASCII (or whsec_ + base64)";
}

/** The Standard Webhooks HMAC key: the bytes a whsec_ secret encodes, else the secret's own bytes. */
export function standardWebhookKey(secret: string): Buffer {
  return secret.startsWith(WHSEC) ? Buffer.from(secret.slice(WHSEC.length), "base64") : Buffer.from(secret, "latin1");
}

/** `v1,<base64 HMAC-SHA256(key, "<id>.<timestamp>.<body>")>` */
export function standardSignature(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", standardWebhookKey(secret)).update(`${id}.${timestampSeconds}.${body}`, "utf8");
  return `v1,${mac.digest("base64")}`;
}

/** Every signature header of one delivery attempt (the spec's and Standard Webhooks'). */
export function signedHeaders(secret: string, eventId: string, body: string, nowSeconds: number) {
  return {
    [SIGNATURE_HEADER]: signatureHeader(secret, body),
    [EVENT_ID_HEADER]: eventId,
    [TIMESTAMP_HEADER]: String(nowSeconds),
    [STANDARD_ID_HEADER]: eventId,
    [STANDARD_TIMESTAMP_HEADER]: String(nowSeconds),
    [STANDARD_SIGNATURE_HEADER]: standardSignature(secret, eventId, nowSeconds, body),
  };
}

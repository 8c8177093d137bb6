// Webhook signing (spec §6): HMAC-SHA256 over the raw payload text with the webhook's secret, hex encoded, compared
// in constant time. Sent as `X-AgentHub-Signature: sha256=<hex>`; the event id and the send time travel in their own
// headers (X-AgentHub-Event-Id, X-AgentHub-Timestamp) and the payload itself carries id and timestamp, so the body
// alone is what is signed, exactly as the spec describes.
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

/** A generated webhook secret (whsec_ + 32 random bytes, base64url). */
export const generateWebhookSecret = () => `whsec_${randomBytes(32).toString("base64url")}`;

// Verifies AgentHub webhook deliveries with WebCrypto (Node >= 20 and browsers/edge runtimes alike).
// Every delivery carries two signatures over the raw body: Standard Webhooks' (`webhook-id`, `webhook-timestamp`,
// `webhook-signature: v1,<base64 HMAC-SHA256(key, "id.timestamp.body")>`, key = the bytes a `whsec_` secret
// encodes, else the secret's own bytes) and the spec's `X-AgentHub-Signature: sha256=<hex HMAC-SHA256(secret,
// body)>`. The Standard Webhooks signature binds the timestamp, so checking it within a tolerance stops replays:
// it is required; the spec's signature is checked too when present.

export interface WebhookEvent<T = Record<string, unknown>> {
  id: string;
  event: string;
  timestamp: string;
  organization: string;
  data: T;
}

export class WebhookVerificationError extends Error {
  override readonly name = "WebhookVerificationError";
}

export interface VerifyWebhookOptions {
  /** The webhook's secret as returned once at creation (`whsec_…`, or your own secret). */
  secret: string;
  /** The raw request body, exactly as received (before any JSON parsing). */
  body: string | Uint8Array;
  /** The request headers (a Headers object or a plain record, any case). */
  headers: Headers | Record<string, string | string[] | undefined>;
  /** Oldest and furthest-future timestamp accepted, in seconds (default 300, as Standard Webhooks). */
  toleranceSeconds?: number;
  /** Current unix seconds (tests). */
  now?: number;
}

const encoder = new TextEncoder();
const WHSEC = "whsec_";

function header(headers: VerifyWebhookOptions["headers"], name: string): string | undefined {
  if (typeof (headers as Headers).get === "function") return (headers as Headers).get(name) ?? undefined;
  for (const [key, value] of Object.entries(headers as Record<string, string | string[] | undefined>)) {
    if (key.toLowerCase() === name) return Array.isArray(value) ? value[0] : value;
  }
  return undefined;
}

function base64ToBytes(b64: string): Uint8Array {
  const bin = atob(b64);
  return Uint8Array.from(bin, (c) => c.charCodeAt(0));
}

function bytesToBase64(bytes: Uint8Array): string {
  let bin = "";
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

async function hmac(key: Uint8Array, data: Uint8Array): Promise<Uint8Array> {
  const cryptoKey = await globalThis.crypto.subtle.importKey(
    "raw",
    key as BufferSource,
    { name: "HMAC", hash: "SHA-256" },
    false,
    ["sign"],
  );
  return new Uint8Array(await globalThis.crypto.subtle.sign("HMAC", cryptoKey, data as BufferSource));
}

/** Compares without an early exit (lengths are public: both are HMAC-SHA256 sizes). */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  let diff = 0;
  for (let i = 0; i < a.length; i++) diff |= a[i]! ^ b[i]!;
  return diff === 0;
}

/** The Standard Webhooks key: the bytes of a whsec_ secret, else the secret's own (latin1) bytes. */
function standardKey(secret: string): Uint8Array {
  if (secret.startsWith(WHSEC)) return base64ToBytes(secret.slice(WHSEC.length));
  return Uint8Array.from(secret, (c) => c.charCodeAt(0) & 0xff);
}

/**
 * Checks a delivery's signatures and age and returns the parsed event; throws WebhookVerificationError when it is
 * forged, tampered with, replayed (timestamp outside the tolerance) or malformed. Deduplicate on `event.id`.
 */
export async function verifyWebhook<T = Record<string, unknown>>(opts: VerifyWebhookOptions): Promise<WebhookEvent<T>> {
  const raw = typeof opts.body === "string" ? opts.body : new TextDecoder().decode(opts.body);
  const id = header(opts.headers, "webhook-id");
  const timestamp = header(opts.headers, "webhook-timestamp");
  const signatures = header(opts.headers, "webhook-signature");
  if (!id || !timestamp || !signatures)
    throw new WebhookVerificationError("missing webhook-id, -timestamp or -signature");
  const sentAt = Number(timestamp);
  if (!/^\d{1,12}$/.test(timestamp)) throw new WebhookVerificationError("webhook-timestamp is not unix seconds");
  const now = opts.now ?? Math.floor(Date.now() / 1000);
  const tolerance = opts.toleranceSeconds ?? 300;
  if (now - sentAt > tolerance) throw new WebhookVerificationError("delivery too old (possible replay)");
  if (sentAt - now > tolerance) throw new WebhookVerificationError("delivery timestamp is in the future");

  const expected = await hmac(standardKey(opts.secret), encoder.encode(`${id}.${timestamp}.${raw}`));
  const matches = signatures
    .split(" ")
    .filter((s) => s.startsWith("v1,"))
    .some((s) => {
      try {
        return sameBytes(base64ToBytes(s.slice(3)), expected);
      } catch {
        return false;
      }
    });
  if (!matches) throw new WebhookVerificationError("webhook-signature does not match");

  const spec = header(opts.headers, "x-agenthub-signature");
  if (spec !== undefined) {
    const hex = spec.replace(/^sha256=/, "");
    const mac = await hmac(encoder.encode(opts.secret), encoder.encode(raw));
    const given = /^[0-9a-f]{64}$/i.test(hex)
      ? Uint8Array.from(hex.match(/../g)!, (h) => Number.parseInt(h, 16))
      : null;
    if (!given || !sameBytes(given, mac)) throw new WebhookVerificationError("X-AgentHub-Signature does not match");
  }

  let event: WebhookEvent<T>;
  try {
    event = JSON.parse(raw) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError("body is not JSON");
  }
  if (event.id !== id) throw new WebhookVerificationError("body id differs from webhook-id");
  return event;
}

/** Signs a body the way AgentHub does (both headers); for tests of your own receiver. */
export async function signWebhook(opts: { secret: string; id: string; body: string; timestamp?: number }) {
  const timestamp = String(opts.timestamp ?? Math.floor(Date.now() / 1000));
  const standard = await hmac(standardKey(opts.secret), encoder.encode(`${opts.id}.${timestamp}.${opts.body}`));
  const spec = await hmac(encoder.encode(opts.secret), encoder.encode(opts.body));
  return {
    "webhook-id": opts.id,
    "webhook-timestamp": timestamp,
    "webhook-signature": `v1,${bytesToBase64(standard)}`,
    "X-AgentHub-Signature": `sha256=${Array.from(spec, (b) => b.toString(16).padStart(2, "0")).join("")}`,
  };
}

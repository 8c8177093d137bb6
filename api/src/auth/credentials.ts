// Organization API credentials: 32 random bytes behind a recognizable prefix, shown once, stored only as SHA-256.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";

export const KEY_PREFIXES = {
  live: "ah_live_",
  test: "ah_test_",
  secret: "ah_secret_",
  member: "ah_member_",
} as const;
export type CredentialKind = keyof typeof KEY_PREFIXES;

export function generateCredential(kind: CredentialKind): string {
  return `${KEY_PREFIXES[kind]}${randomBytes(32).toString("base64url")}`;
}

export const hashCredential = (value: string) => createHash("sha256").update(value, "utf8").digest("hex");

/** Display prefix kept next to the hash (the kind's prefix and 4 characters: not enough to guess anything). */
export const displayPrefix = (value: string) => value.slice(0, value.indexOf("_", 3) + 5);

/** The kind a presented API key claims to be (by prefix), or null when it is not an organization or member key. */
export function keyKind(value: string): "live" | "test" | "member" | null {
  if (value.startsWith(KEY_PREFIXES.live)) return "live";
  if (value.startsWith(KEY_PREFIXES.test)) return "test";
  if (value.startsWith(KEY_PREFIXES.member)) return "member";
  return null;
}

/** Constant-time equality of two hex digests. */
export function sameDigest(a: string, b: string): boolean {
  const x = Buffer.from(a, "hex");
  const y = Buffer.from(b, "hex");
  return x.length === y.length && x.length > 0 && timingSafeEqual(x, y);
}

/** Well-formed: prefix + 43 base64url characters. Anything else is rejected before touching the database. */
export function wellFormed(value: string, kind: CredentialKind): boolean {
  const prefix = KEY_PREFIXES[kind];
  return value.startsWith(prefix) && /^[A-Za-z0-9_-]{43}$/.test(value.slice(prefix.length));
}

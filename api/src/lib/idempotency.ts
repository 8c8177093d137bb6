// Idempotency-Key, one rule for every route that takes it (Stripe's semantics, the IETF httpapi draft's statuses;
// docs/decisions.md "Idempotency-Key: one rule"): 8-255 visible ASCII characters (else 400 INVALID_IDEMPOTENCY_KEY);
// a retried request with the same key, from the same caller, for the same operation, gets the first request's
// outcome; the same key with another request is 422 IDEMPOTENCY_KEY_REUSED.
import { createHash } from "node:crypto";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import { apiError } from "../errors.ts";

/** Replays are served this long after the first request (then the record, and any sealed secret, is deleted). */
export const IDEMPOTENCY_TTL_HOURS = 24;
const KEY_FORMAT = /^[\x21-\x7e]{8,255}$/;

export interface IdempotencyRecord {
  scope: string;
  operation: string;
  key: string;
  requestHash: string;
  resource: string | null;
  sealedSecret: Buffer | null;
}

/** The optional header as routes declare it (OpenAPI); `idempotencyKeyOf` validates it with a clear error. */
export const idempotencyKeyHeader = z
  .string()
  .optional()
  .openapi({ description: "8-255 visible ASCII characters, unique per intended request (e.g. a UUID)" });

/** The Idempotency-Key header, validated (8-255 visible ASCII characters), or undefined when absent. */
export function idempotencyKeyOf(c: Context): string | undefined {
  const key = c.req.header("idempotency-key");
  if (key === undefined) return undefined;
  if (!KEY_FORMAT.test(key)) {
    throw apiError("INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 8-255 visible ASCII characters");
  }
  return key;
}

export const requestHash = (request: unknown) => createHash("sha256").update(JSON.stringify(request)).digest("hex");

/** The answer to a key reused with a different request (the caller must pick a new key for a new request). */
export const idempotencyKeyReused = () =>
  apiError(
    "IDEMPOTENCY_KEY_REUSED",
    "this Idempotency-Key was used with a different request; use a new key for a new request",
  );

/** Refuses a key reused with a different request. */
export function assertSameRequest(record: IdempotencyRecord, hash: string): void {
  if (record.requestHash !== hash) throw idempotencyKeyReused();
}

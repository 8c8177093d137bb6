// Idempotency-Key, one rule for every route that takes it (Stripe's semantics, the IETF httpapi draft's statuses;
// docs/decisions.md "Idempotency-Key: one rule"): 8-255 visible ASCII characters (else 400 INVALID_IDEMPOTENCY_KEY);
// a retried request with the same key, from the same caller, for the same operation, gets the first request's
// outcome; the same key with another request is 422 IDEMPOTENCY_KEY_REUSED.
import { createHash } from "node:crypto";
import { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type pg from "pg";
import type { Deps } from "../context.ts";
import { ApiError } from "../errors.ts";

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
    throw new ApiError(400, "INVALID_IDEMPOTENCY_KEY", "Idempotency-Key must be 8-255 visible ASCII characters");
  }
  return key;
}

export const requestHash = (request: unknown) => createHash("sha256").update(JSON.stringify(request)).digest("hex");

/** The answer to a key reused with a different request (the caller must pick a new key for a new request). */
export const idempotencyKeyReused = () =>
  new ApiError(
    422,
    "IDEMPOTENCY_KEY_REUSED",
    "this Idempotency-Key was used with a different request; use a new key for a new request",
  );

/** Refuses a key reused with a different request. */
export function assertSameRequest(record: IdempotencyRecord, hash: string): void {
  if (record.requestHash !== hash) throw idempotencyKeyReused();
}

export async function findIdempotent(
  deps: Pick<Deps, "pool">,
  scope: string,
  operation: string,
  key: string,
): Promise<IdempotencyRecord | undefined> {
  const { rows } = await deps.pool.query<{
    request_hash: string;
    resource: string | null;
    sealed_secret: Buffer | null;
  }>(
    `select request_hash, resource, sealed_secret from api.idempotency_key
      where scope = $1 and operation = $2 and key = $3 and expires_at > now()`,
    [scope, operation, key],
  );
  const row = rows[0];
  return row
    ? {
        scope,
        operation,
        key,
        requestHash: row.request_hash,
        resource: row.resource,
        sealedSecret: row.sealed_secret,
      }
    : undefined;
}

/** Records the key inside the caller's transaction; false when another request took the same key first. */
export async function recordIdempotent(client: pg.PoolClient, record: IdempotencyRecord): Promise<boolean> {
  // An expired record of the same key is replaced: after the TTL the key starts afresh.
  const { rowCount } = await client.query(
    `insert into api.idempotency_key (scope, operation, key, request_hash, resource, sealed_secret, expires_at)
     values ($1, $2, $3, $4, $5, $6, now() + make_interval(hours => $7))
     on conflict (scope, operation, key) do update
       set request_hash = excluded.request_hash, resource = excluded.resource, sealed_secret = excluded.sealed_secret,
           created_at = now(), expires_at = excluded.expires_at
       where api.idempotency_key.expires_at <= now()`,
    [
      record.scope,
      record.operation,
      record.key,
      record.requestHash,
      record.resource,
      record.sealedSecret,
      IDEMPOTENCY_TTL_HOURS,
    ],
  );
  return rowCount === 1;
}

/** Deletes expired records (their sealed secrets with them). */
export async function pruneIdempotencyKeys(deps: Pick<Deps, "pool">): Promise<number> {
  const { rowCount } = await deps.pool.query("delete from api.idempotency_key where expires_at <= now()");
  return rowCount ?? 0;
}

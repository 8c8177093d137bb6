// Idempotency records (api.idempotency_key): the first request's outcome per (scope, operation, key), served to
// retries for IDEMPOTENCY_TTL_HOURS (lib/idempotency.ts has the rule).
import type pg from "pg";
import type { Deps } from "../context.ts";
import { IDEMPOTENCY_TTL_HOURS, type IdempotencyRecord } from "../lib/idempotency.ts";

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

// Sign-in state: single-use SIWE nonces (api.auth_nonce) and governance access tokens (api.access_token, only the
// token's SHA-256 is stored). Lifetimes are wall clock, set by the database's now().
import type { Deps } from "../context.ts";

type Pool = Pick<Deps, "pool">;

/** Stores a fresh nonce valid for `ttlSeconds`; returns when it expires. */
export async function insertNonce(deps: Pool, nonce: string, ttlSeconds: number): Promise<Date> {
  const r = await deps.pool.query<{ expires_at: Date }>(
    `insert into api.auth_nonce (nonce, expires_at) values ($1, now() + make_interval(secs => $2)) returning expires_at`,
    [nonce, ttlSeconds],
  );
  return r.rows[0]!.expires_at;
}

/** Marks `nonce` used by `address`; false when it is unknown, expired or already used (nothing changes then). */
export async function consumeNonce(deps: Pool, nonce: string, address: string): Promise<boolean> {
  const consumed = await deps.pool.query(
    "update api.auth_nonce set used_at = now(), used_by = $2 where nonce = $1 and used_at is null and expires_at > now()",
    [nonce, address.toLowerCase()],
  );
  return consumed.rowCount === 1;
}

export async function insertAccessToken(
  deps: Pool,
  t: { tokenHash: string; address: string; scope: string; ttlSeconds: number },
): Promise<Date> {
  const r = await deps.pool.query<{ expires_at: Date }>(
    `insert into api.access_token (token_hash, address, scope, expires_at)
     values ($1, $2, $3, now() + make_interval(secs => $4)) returning expires_at`,
    [t.tokenHash, t.address, t.scope, t.ttlSeconds],
  );
  return r.rows[0]!.expires_at;
}

export async function findAccessToken(
  deps: Pool,
  tokenHash: string,
  scope: string,
): Promise<{ address: string; expired: boolean; revoked: boolean } | undefined> {
  const r = await deps.pool.query<{ address: string; expired: boolean; revoked: boolean }>(
    `select address, expires_at <= now() expired, revoked_at is not null revoked
       from api.access_token where token_hash = $1 and scope = $2`,
    [tokenHash, scope],
  );
  return r.rows[0];
}

export async function revokeAccessTokenHash(deps: Pool, tokenHash: string): Promise<void> {
  await deps.pool.query("update api.access_token set revoked_at = now() where token_hash = $1 and revoked_at is null", [
    tokenHash,
  ]);
}

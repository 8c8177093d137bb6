// Governance access tokens: an address signs in with a SIWE signed action (governance-access:account:<address>)
// and receives a random opaque bearer token bound to that address. Only its SHA-256 is stored; it expires after
// ACCESS_TOKEN_TTL_SECONDS (wall clock, like nonces) and can be revoked.
import { createHash, randomBytes } from "node:crypto";
import type { Context } from "hono";
import { type Address, getAddress } from "viem";
import type { AppEnv, Deps } from "../context.ts";
import { apiError } from "../errors.ts";
import { findAccessToken, insertAccessToken, revokeAccessTokenHash } from "../stores/auth.ts";

export const ACCESS_TOKEN_TTL_SECONDS = 3600;
export const GOVERNANCE_SCOPE = "governance";
const PREFIX = "ahg_";

const hashToken = (token: string) => createHash("sha256").update(token).digest("hex");

export async function issueAccessToken(
  deps: Deps,
  address: Address,
  scope = GOVERNANCE_SCOPE,
): Promise<{ accessToken: string; expiresAt: string }> {
  const accessToken = `${PREFIX}${randomBytes(32).toString("base64url")}`;
  const expiresAt = await insertAccessToken(deps, {
    tokenHash: hashToken(accessToken),
    address: getAddress(address),
    scope,
    ttlSeconds: ACCESS_TOKEN_TTL_SECONDS,
  });
  return { accessToken, expiresAt: expiresAt.toISOString() };
}

function bearer(c: Context<AppEnv>): string {
  const header = c.req.header("authorization") ?? "";
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw apiError("ACCESS_TOKEN_REQUIRED", "this operation needs Authorization: Bearer <ACCESS_TOKEN>");
  return match[1]!;
}

/** The address the request's bearer token is bound to; 401 ACCESS_TOKEN_REQUIRED / INVALID_ACCESS_TOKEN. */
export async function requireAccessToken(c: Context<AppEnv>, scope = GOVERNANCE_SCOPE): Promise<Address> {
  const token = bearer(c);
  const row = await findAccessToken(c.get("deps"), hashToken(token), scope);
  if (!row) throw apiError("INVALID_ACCESS_TOKEN", "unknown access token");
  if (row.revoked) throw apiError("INVALID_ACCESS_TOKEN", "the access token was revoked");
  if (row.expired) throw apiError("INVALID_ACCESS_TOKEN", "the access token has expired; sign in again");
  return getAddress(row.address);
}

/** Revokes the request's bearer token (idempotent for a valid token). */
export async function revokeAccessToken(c: Context<AppEnv>): Promise<Address> {
  const address = await requireAccessToken(c);
  await revokeAccessTokenHash(c.get("deps"), hashToken(bearer(c)));
  return address;
}

// Rotating an organization credential (live key, test key or secret): a new value now; the values it replaces keep
// working until the end of the grace period (7 days, database clock; earlier rotations keep their earlier end), or
// stop at once when the rotation revokes them (a leaked value). Every request reads the credentials table, so a
// revocation holds from the next request in every API process.
import type pg from "pg";
import { withTransaction } from "../../db/transaction.ts";
import { type CredentialKind, displayPrefix, generateCredential, hashCredential } from "./credentials.ts";

export const ROTATION_GRACE_DAYS = 7;

export interface Rotated {
  value: string;
  /** When the replaced values stop working; null when they were revoked now. */
  previousValidUntil: Date | null;
}

export async function rotateCredential(
  pool: pg.Pool,
  orgId: string,
  kind: CredentialKind,
  revokePrevious: boolean,
): Promise<Rotated> {
  const value = generateCredential(kind);
  return withTransaction(pool, async (client) => {
    await client.query("select 1 from api.organization where id = $1 for update", [orgId]);
    const { rows } = await client.query<{ until: Date }>(
      // One second in the past when revoking: `expires_at > now()` is what every lookup checks.
      `select case when $2 then now() - interval '1 second' else now() + make_interval(days => $1) end until`,
      [ROTATION_GRACE_DAYS, revokePrevious],
    );
    const until = rows[0]!.until;
    await client.query(
      `update api.org_credential set expires_at = $3 where org_id = $1 and kind = $2
          and (expires_at is null or expires_at > $3)`,
      [orgId, kind, until],
    );
    await client.query("insert into api.org_credential (key_hash, org_id, kind, prefix) values ($1, $2, $3, $4)", [
      hashCredential(value),
      orgId,
      kind,
      displayPrefix(value),
    ]);
    return { value, previousValidUntil: revokePrevious ? null : until };
  });
}

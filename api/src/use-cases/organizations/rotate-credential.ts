// Rotating an organization credential (live key, test key or secret): a new value now; the values it replaces keep
// working until the end of the grace period (7 days, database clock; earlier rotations keep their earlier end), or
// stop at once when the rotation revokes them (a leaked value). Every request reads the credentials table, so a
// revocation holds from the next request in every API process.
import { displayPrefix, generateCredential, hashCredential } from "../../auth/credentials.ts";
import type { Deps } from "../../context.ts";
import { rotateCredential } from "../../stores/org-credentials.ts";
import { getOrganization } from "./get-organization.ts";

export const ROTATION_GRACE_DAYS = 7;

export interface RotateCredentialParams {
  orgId: string;
  kind: "live" | "test" | "secret";
  revokePrevious: boolean;
}

export interface Rotated {
  value: string;
  /** When the replaced values stop working; null when they were revoked now. */
  previousValidUntil: Date | null;
}

export async function rotateOrgCredential(
  deps: Pick<Deps, "db" | "pool">,
  p: RotateCredentialParams,
): Promise<Rotated> {
  await getOrganization(deps, { id: p.orgId });
  const value = generateCredential(p.kind);
  const until = await rotateCredential(
    deps.pool,
    { hash: hashCredential(value), orgId: p.orgId, kind: p.kind, prefix: displayPrefix(value) },
    ROTATION_GRACE_DAYS,
    p.revokePrevious,
  );
  return { value, previousValidUntil: p.revokePrevious ? null : until };
}

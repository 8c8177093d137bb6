// One verification as of chain time, or 404 VERIFICATION_NOT_FOUND.
import type { Deps } from "../../context.ts";
import { findVerification } from "../../stores/verifications.ts";
import { verificationNotFound } from "./badges.ts";
import { toView, type VerificationView } from "./verification-view.ts";

export async function getVerification(deps: Deps, { id }: { id: number }): Promise<{ verification: VerificationView }> {
  const row = await findVerification(deps.pool, id);
  if (!row) throw verificationNotFound(id);
  return { verification: toView(row, await deps.clock.now()) };
}

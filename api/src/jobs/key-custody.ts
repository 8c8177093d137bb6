// Secrets the service holds only for a while: claimed keys (redelivery window), sealed claim codes of idempotent
// registrations (24 h), and registrations whose mint outcome was unknown when they answered.
import type { Deps } from "../context.ts";
import { pruneIdempotencyKeys } from "../lib/idempotency.ts";
import { adoptOrphanedMints } from "../use-cases/agents/register-agent.ts";

export async function keyCustody(deps: Deps) {
  const erased = await deps.pool.query(
    `update api.agent_wallet set encrypted_key = null
      where encrypted_key is not null and claim_state = 'CLAIMED' and key_redelivery_until <= now()`,
  );
  const idempotencyRecords = await pruneIdempotencyKeys(deps);
  const adopted = await adoptOrphanedMints(deps);
  return { keysErased: erased.rowCount ?? 0, idempotencyRecords, adopted };
}

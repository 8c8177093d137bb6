// Secrets the service holds only for a while: claimed keys (redelivery window), sealed claim codes of idempotent
// registrations (24 h), and registrations whose mint outcome was unknown when they answered.
import type { Deps } from "../context.ts";
import { eraseDeliveredKeys } from "../stores/agent-wallets.ts";
import { pruneIdempotencyKeys } from "../stores/idempotency.ts";
import { adoptOrphanedMints } from "../use-cases/agents/register-agent.ts";

export async function keyCustody(deps: Deps) {
  const keysErased = await eraseDeliveredKeys(deps);
  const idempotencyRecords = await pruneIdempotencyKeys(deps);
  const adopted = await adoptOrphanedMints(deps);
  return { keysErased, idempotencyRecords, adopted };
}

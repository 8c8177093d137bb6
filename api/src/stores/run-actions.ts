// Who asked for each on-chain step of a run (api.run_action).
import type { Deps } from "../context.ts";

/** Whether agent `agentId` ever acted on run `runId` (API id). */
export async function agentActedOnRun(deps: Pick<Deps, "pool">, runId: number, agentId: number): Promise<boolean> {
  const r = await deps.pool.query("select 1 from api.run_action where run_id = $1 and agent_id = $2 limit 1", [
    runId,
    agentId,
  ]);
  return (r.rowCount ?? 0) > 0;
}

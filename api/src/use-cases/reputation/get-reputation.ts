// An agent's reputation with the breakdown of every component; computed and stored on first read.
import type { Deps } from "../../context.ts";
import {
  computeReputation,
  fromStoredInputs,
  isStoredInputs,
  type ReputationComponents,
} from "../../domain/reputation.ts";
import { errors } from "../../errors.ts";
import { type ReputationRow, readReputation } from "../../stores/reputation.ts";
import { recomputeAgent } from "../../stores/reputation-recompute.ts";

export interface GetReputationParameters {
  agentId: number;
}

export type GetReputationReturnType = ReputationRow & { breakdown: ReputationComponents };

/** 404 AGENT_NOT_FOUND for an unknown agent. */
export async function getReputation(
  deps: Deps,
  { agentId }: GetReputationParameters,
): Promise<GetReputationReturnType> {
  // The route caches the whole answer until the stored score or the run stats change (cachedAnswer).
  let read = await readReputation(deps, agentId);
  if (!read.exists) throw errors.agentNotFound(agentId);
  if (!read.row || !isStoredInputs(read.row.components)) {
    // Never computed yet (no trigger so far): compute and store it now.
    await recomputeAgent(deps, agentId, "read");
    read = await readReputation(deps, agentId);
  }
  const row = read.row!;
  // The breakdown is rebuilt from the inputs stored with the score (same function, same result).
  return { ...row, breakdown: computeReputation(fromStoredInputs(row.components as never)).components };
}

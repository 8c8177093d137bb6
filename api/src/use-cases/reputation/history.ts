// Score snapshots of an agent, newest first, each with the breakdown rebuilt from its stored inputs.
import type { Deps } from "../../context.ts";
import { computeReputation, fromStoredInputs, isStoredInputs } from "../../domain/reputation.ts";
import { reputationSnapshots } from "../../stores/reputation.ts";
import { requireAgent } from "../guards.ts";

export interface ReputationHistoryParameters {
  agentId: number;
  limit: number;
  /** Snapshot id to page from (exclusive). */
  before?: number;
}

export interface ReputationSnapshot {
  id: number;
  score: number;
  trigger: string;
  computedAt: string;
  breakdown: Record<string, Record<string, unknown>>;
}

export async function reputationHistory(
  deps: Deps,
  { agentId, limit, before }: ReputationHistoryParameters,
): Promise<ReputationSnapshot[]> {
  await requireAgent(deps, agentId);
  const rows = await reputationSnapshots(deps, agentId, limit, before);
  return rows.map((r) => ({
    id: r.id,
    score: r.score,
    trigger: r.trigger,
    computedAt: r.computedAt.toISOString(),
    breakdown: isStoredInputs(r.components)
      ? (computeReputation(fromStoredInputs(r.components)).components as unknown as Record<
          string,
          Record<string, unknown>
        >)
      : {},
  }));
}

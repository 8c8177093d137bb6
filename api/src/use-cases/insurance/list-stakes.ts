// An agent's coverage and its stake deposits, newest first.
import type { Deps } from "../../context.ts";
import { type CoverageSummary, coverageSummary, stakeEntries } from "../../stores/insurance.ts";
import { requireAgent } from "../guards.ts";

export interface ListStakesParameters {
  agentId: number;
  limit: number;
  offset: number;
}

export type ListStakesReturnType = ListStakesParameters & { stake: CoverageSummary } & Awaited<
    ReturnType<typeof stakeEntries>
  >;

export async function listStakes(
  deps: Deps,
  { agentId, limit, offset }: ListStakesParameters,
): Promise<ListStakesReturnType> {
  await requireAgent(deps, agentId);
  const [stake, entries] = await Promise.all([
    coverageSummary(deps, agentId),
    stakeEntries(deps, agentId, limit, offset),
  ]);
  return { agentId, stake, ...entries, limit, offset };
}

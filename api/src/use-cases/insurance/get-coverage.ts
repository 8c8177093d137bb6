// An agent's coverage, pending withdrawal and cooldown (read from the contract), or 404 AGENT_NOT_FOUND.
import type { Deps } from "../../context.ts";
import { type CoverageSummary, coverageSummary } from "../../stores/insurance.ts";
import { requireAgent } from "../guards.ts";

export async function getCoverage(deps: Deps, { agentTokenId }: { agentTokenId: number }): Promise<CoverageSummary> {
  await requireAgent(deps, agentTokenId);
  return coverageSummary(deps, agentTokenId);
}

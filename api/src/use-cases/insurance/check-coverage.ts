// Whether an agent's coverage not pending withdrawal is at least an amount (InsurancePool.hasCoverage).
import type { Deps } from "../../context.ts";
import { coverageSummary, hasCoverage } from "../../stores/insurance.ts";
import { requireAgent } from "../guards.ts";

export interface CheckCoverageParameters {
  agentTokenId: number;
  /** USDC base units. */
  requiredAmount: string;
}

export interface CheckCoverageReturnType {
  agentTokenId: number;
  requiredAmount: string;
  hasCoverage: boolean;
  availableCoverage: string;
}

export async function checkCoverage(deps: Deps, p: CheckCoverageParameters): Promise<CheckCoverageReturnType> {
  await requireAgent(deps, p.agentTokenId);
  const [covered, summary] = await Promise.all([
    hasCoverage(deps, p.agentTokenId, BigInt(p.requiredAmount)),
    coverageSummary(deps, p.agentTokenId),
  ]);
  return {
    agentTokenId: p.agentTokenId,
    requiredAmount: BigInt(p.requiredAmount).toString(),
    hasCoverage: covered,
    availableCoverage: summary.availableCoverage,
  };
}

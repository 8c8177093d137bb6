// A run's insurance state for its poster: who failed it and how, the cover, what a claim would pay, whether one is
// possible now (and if not, the claim's error code), and the claims paid.
import type { Deps } from "../../context.ts";
import { type Claimability, type ClaimRow, claimability, claimsOfRun } from "../../stores/insurance.ts";
import { getRun } from "../runs/get-run.ts";

export interface RunClaimsParameters {
  bountyId: number;
}

export type RunClaim = ClaimRow & { bountyId: number; onchainRunId: string };

export interface RunClaimsReturnType {
  bountyId: number;
  onchainRunId: string | null;
  failedAgentId: number | null;
  failureKind: Claimability["failureKind"];
  cover: string;
  insuredLoss: string;
  claimable: boolean;
  refusal: Claimability["refusal"];
  claims: RunClaim[];
}

export async function runClaims(deps: Deps, { bountyId }: RunClaimsParameters): Promise<RunClaimsReturnType> {
  const run = await getRun(deps, bountyId);
  if (run.onchainRunId === null) {
    return {
      bountyId,
      onchainRunId: null,
      failedAgentId: null,
      failureKind: null,
      cover: "0",
      insuredLoss: "0",
      claimable: false,
      refusal: "NO_FAILED_AGENT",
      claims: [],
    };
  }
  const runId = run.onchainRunId;
  const [state, paid] = await Promise.all([claimability(deps, runId), claimsOfRun(deps, runId)]);
  return {
    bountyId,
    onchainRunId: runId.toString(),
    failedAgentId: state.failedAgentId === 0n ? null : Number(state.failedAgentId),
    failureKind: state.failureKind,
    cover: state.cover.toString(),
    insuredLoss: state.insuredLoss.toString(),
    claimable: state.refusal === null,
    refusal: state.refusal,
    claims: paid.map((cl) => ({ bountyId, onchainRunId: runId.toString(), ...cl })),
  };
}

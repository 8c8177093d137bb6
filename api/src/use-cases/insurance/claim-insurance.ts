// The run's poster claims against the failed agent's coverage (signed action insurance-claim:run:<bountyId>): only a
// verified loss (timeout, lost dispute) of a run with a declared cover pays, once per run, net of the stake already
// slashed to the poster and capped by the coverage. The pool decides; the checks here name the refusal first.
import type { Hex } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { type Claimability, claimability, claimsOfRun } from "../../stores/insurance.ts";
import { verifySignedBy } from "../guards.ts";
import { getRun } from "../runs/get-run.ts";
import { relayPool, waitForInsuranceTx } from "./pool.ts";
import type { RunClaim } from "./run-claims.ts";

export interface ClaimInsuranceParameters {
  bountyId: number;
  message: string;
  signature: string;
}

export interface ClaimInsuranceReturnType {
  success: boolean;
  claim: RunClaim;
  txHash: Hex;
  message: string;
}

function refusalMessage(state: Claimability, bountyId: number): string {
  switch (state.refusal) {
    case "NO_FAILED_AGENT":
      return `no agent has failed run ${bountyId}`;
    case "LOSS_NOT_VERIFIED":
      return `agent ${state.failedAgentId} was rejected on run ${bountyId}: a rejection is the poster's own call and the escrow refunded reward + fee in full; insurance pays only timeouts and lost disputes`;
    case "ALREADY_CLAIMED":
      return `run ${bountyId} was already paid by insurance (one payout per run)`;
    case "NO_COVER_DECLARED":
      return `run ${bountyId}'s poster declared no cover: the escrow refunded the deposit, and insurance pays only agreed damages declared before the work started`;
    case "NO_INSURED_LOSS":
      return `the stake slashed to the poster already paid run ${bountyId}'s declared cover`;
    default:
      return `agent ${state.failedAgentId} has no insurance coverage`;
  }
}

export async function claimInsurance(deps: Deps, p: ClaimInsuranceParameters): Promise<ClaimInsuranceReturnType> {
  const { bountyId } = p;
  const run = await getRun(deps, bountyId);
  await verifySignedBy(deps, p, { action: "insurance-claim", kind: "run", id: bountyId }, [run.poster], () =>
    apiError("NOT_RUN_POSTER", `only the run's poster ${run.poster} may claim`),
  );
  if (run.onchainRunId === null)
    throw apiError("NO_FAILED_AGENT", `run ${bountyId} was never funded, so no agent failed it`);
  const runId = run.onchainRunId;
  const state = await claimability(deps, runId);
  if (state.refusal !== null) throw apiError(state.refusal, refusalMessage(state, bountyId));
  const relayed = await relayPool(deps, "claim", [runId], `insurance-claim:${runId}`);
  await waitForInsuranceTx(deps, relayed.txHash, "CLAIM_PAID");
  const [paid] = await claimsOfRun(deps, runId, relayed.txHash);
  return {
    success: true,
    claim: { bountyId, onchainRunId: runId.toString(), ...paid! },
    txHash: relayed.txHash,
    message: `Paid ${paid!.amountUsdc} USDC base units from agent ${state.failedAgentId}'s coverage to the poster.`,
  };
}

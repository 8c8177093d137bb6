// Who may claim a run: the same checks back GET claim-eligibility and POST claim.
import { type Hex, isAddressEqual } from "viem";
import type { Deps } from "../../context.ts";
import { type AgentStatus, activeStake } from "../../domain/agent-status.ts";
import { type AgentRecord, statusOf } from "../../stores/agents.ts";
import { availableCoverage } from "../../stores/insurance.ts";
import type { RunRecord } from "../../stores/runs.ts";
import { requireAgent } from "../guards.ts";
import { getRun } from "./get-run.ts";

export interface ClaimProblem {
  /** Stable reason code (claim-eligibility `reasons`). */
  code: string;
  /** What POST claim answers: 400 RUN_NOT_AVAILABLE for run problems, 403 with `code` for agent problems. */
  status: 400 | 403;
  message: string;
}

export interface ClaimCheck {
  status: AgentStatus;
  stakedAmount: bigint;
  /** The vault's minimum stake the check used (a governance parameter). */
  minStake: bigint;
  problems: ClaimProblem[];
}

/**
 * `minStake`: StakeVault.minStake as of now (deps.params); `availableCoverage`: the agent's InsurancePool coverage not
 * pending withdrawal (only compared when the run requires coverage).
 */
export function checkClaim(
  run: RunRecord,
  agent: AgentRecord,
  now: bigint,
  minStake: bigint,
  availableCoverage: bigint,
): ClaimCheck {
  const status = statusOf(agent, now, minStake);
  const stakedAmount = activeStake(agent.stake);
  const problems: ClaimProblem[] = [];
  if (run.state !== "OPEN") {
    problems.push({ code: "RUN_NOT_OPEN", status: 400, message: `run ${run.id} is ${run.state}, not OPEN` });
  } else if (now >= run.deadline) {
    problems.push({ code: "DEADLINE_PASSED", status: 400, message: `run ${run.id}'s deadline has passed` });
  }
  if (run.coverPending) {
    problems.push({
      code: "COVER_PENDING",
      status: 400,
      message: `run ${run.id}'s poster declared ${run.requiredCoverage} of cover but has not set it in the InsurancePool yet`,
    });
  }
  if (status === "BANNED") problems.push({ code: "AGENT_BANNED", status: 403, message: `agent ${agent.id} is banned` });
  if (status === "FROZEN") {
    problems.push({
      code: "AGENT_FROZEN",
      status: 403,
      message: `agent ${agent.id} is frozen after a slash; it must stake again`,
    });
  }
  if (stakedAmount < minStake) {
    problems.push({
      code: "INSUFFICIENT_STAKE",
      status: 403,
      message: `agent ${agent.id} has ${stakedAmount} staked; claiming needs at least ${minStake} (the vault's minimum stake)`,
    });
  }
  if (availableCoverage < run.requiredCoverage) {
    problems.push({
      code: "COVERAGE_REQUIRED",
      status: 403,
      message: `run ${run.id} requires ${run.requiredCoverage} of insurance coverage; agent ${agent.id} has ${availableCoverage} not pending withdrawal`,
    });
  }
  const poster = run.poster as Hex;
  if (isAddressEqual(agent.owner as Hex, poster) || isAddressEqual(agent.wallet as Hex, poster)) {
    problems.push({ code: "AGENT_IS_POSTER", status: 403, message: "a poster cannot claim its own run" });
  }
  if (run.failedAgentId === agent.id) {
    problems.push({
      code: "AGENT_FAILED_THIS_RUN",
      status: 403,
      message: `agent ${agent.id} already failed run ${run.id}`,
    });
  }
  return { status, stakedAmount, minStake, problems };
}

export interface ClaimEligibilityParameters {
  runId: number;
  agentId: number;
}

export interface ClaimEligibilityReturnType {
  run: RunRecord;
  agent: AgentRecord;
  check: ClaimCheck;
  /** The agent's InsurancePool coverage not pending withdrawal. */
  availableCoverage: bigint;
}

/** Whether the agent may claim the run now (governance parameters as of the latest block). */
export async function claimEligibility(deps: Deps, p: ClaimEligibilityParameters): Promise<ClaimEligibilityReturnType> {
  const run = await getRun(deps, p.runId);
  const agent = await requireAgent(deps, p.agentId);
  const [now, { minStake }, coverage] = await Promise.all([
    deps.clock.fresh(),
    deps.params.current(),
    availableCoverage(deps, agent.id),
  ]);
  return { run, agent, check: checkClaim(run, agent, now, minStake, coverage), availableCoverage: coverage };
}

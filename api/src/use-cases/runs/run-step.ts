// The one pipeline every step after funding goes through (claim and the arbiter's resolution included):
// the run exists -> who asks is checked (a signed request, or the admin route for the arbiter) -> under the run's
// lease: the fresh run's state and the asker's side, then the step's escrow call and its api.run_action record ->
// the wait until the indexer shows the transaction -> the step's follow-up (organization events).
import type { RelayResult } from "@agenthub/relayer/relayer";
import { type Address, isAddressEqual } from "viem";
import type { Deps } from "../../context.ts";
import type { RunState } from "../../domain/run-state.ts";
import { apiError, errors } from "../../errors.ts";
import { isAgentWalletOrOwner } from "../../lib/deposit-tx.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import type { AgentRecord } from "../../stores/agents.ts";
import { availableCoverage } from "../../stores/insurance.ts";
import { type RunRecord, recordAction, withRunLock } from "../../stores/runs.ts";
import { requireAgent } from "../guards.ts";
import { checkClaim } from "./claim-eligibility.ts";
import { waitForRunTx } from "./escrow.ts";
import { getRun } from "./get-run.ts";

/**
 * Who may ask for a step: the run's poster, its claiming agent (owner, or wallet while bound), either of them,
 * an agent claiming the run (signed by walletAddress, the agent's owner or wallet), or the arbiter (admin route).
 */
export type StepAuthority = "poster" | "agent" | "party" | "claimer" | "arbiter";
export type Side = "poster" | "agent" | "admin";

export interface StepContext<I> {
  deps: Deps;
  /** The run as read under its lease. */
  run: RunRecord;
  input: I;
  /** Who signed the request (null for the arbiter). */
  signer: Address | null;
  side: Side;
  /** claim: the claiming agent. */
  agent?: AgentRecord;
}

export interface StepSpec<I, X = undefined> {
  /** Signed action name (the message's resource is urn:agenthub:<action>:run:<id>) and the api.run_action name. */
  action: string;
  by: StepAuthority;
  /** States the step starts from (claim: OPEN, checked with the agent's eligibility). */
  from: readonly RunState[];
  verb: string;
  /** The step's own checks and its escrow call, under the run's lease; `detail` is recorded with the action. */
  send: (ctx: StepContext<I>) => Promise<{ relayed: RelayResult; detail?: Record<string, unknown> }>;
  /** After the step is indexed: organization events and what the answer adds (claim: the agent). */
  after?: (ctx: StepContext<I>, run: RunRecord, txHash: string) => Promise<X>;
  done: (run: RunRecord, extra: X, ctx: StepContext<I>) => string | Promise<string>;
}

export interface RunStepReturnType<X> {
  run: RunRecord;
  txHash: string;
  message: string;
  extra: X;
}

export interface Signed {
  message: string;
  signature: string;
}

const same = (a: string | null, b: string) => a !== null && isAddressEqual(a as Address, b as Address);

/** Checks `signer` may act as `by` on `run`; returns which side it is. */
function assertActor(run: RunRecord, signer: Address, by: "poster" | "agent" | "party"): Side {
  const isPoster = same(run.poster, signer);
  const isAgent =
    run.agentId !== null && (same(run.agentOwner, signer) || (run.agentWalletBound && same(run.agentWallet, signer)));
  if (by === "poster" && !isPoster) {
    throw errors.forbidden("NOT_RUN_POSTER", `only the run's poster ${run.poster} may do this`);
  }
  if (by === "agent" && !isAgent) {
    throw errors.forbidden(
      "NOT_RUN_AGENT",
      run.agentId === null
        ? `run ${run.id} has no claiming agent`
        : `only agent ${run.agentId}'s owner or wallet may do this`,
    );
  }
  if (by === "party" && !isPoster && !isAgent) {
    throw errors.forbidden("NOT_RUN_PARTY", "only the poster or the claiming agent may do this");
  }
  return isPoster ? "poster" : "agent";
}

function assertState(run: RunRecord, allowed: readonly RunState[], what: string) {
  if (!allowed.includes(run.state)) {
    throw errors.conflict(
      "INVALID_RUN_STATE",
      `cannot ${what} run ${run.id} in state ${run.state} (needs ${allowed.join(" or ")})`,
    );
  }
}

/** Before the lease: who asks (nothing is consumed before the run and the claiming agent are known to exist). */
async function authorize(
  deps: Deps,
  spec: StepSpec<unknown, unknown>,
  runId: number,
  signed: Signed | undefined,
  input: unknown,
): Promise<{ signer: Address | null; agent?: AgentRecord }> {
  if (spec.by === "arbiter") return { signer: null };
  if (!signed) throw new Error(`run step ${spec.action} needs a signed request`);
  if (spec.by !== "claimer") {
    return { signer: await verifySignedAction(deps, signed, { action: spec.action, kind: "run", id: runId }) };
  }
  const { agentId, walletAddress } = input as { agentId: number; walletAddress: Address };
  const agent = await requireAgent(deps, agentId);
  const signer = await verifySignedAction(deps, signed, { action: spec.action, kind: "run", id: runId });
  if (!isAddressEqual(signer, walletAddress)) {
    throw errors.forbidden("WALLET_MISMATCH", "the message must be signed by walletAddress");
  }
  if (!isAgentWalletOrOwner(agent, signer)) {
    throw errors.forbidden("WALLET_MISMATCH", `walletAddress is neither agent ${agent.id}'s owner nor its wallet`);
  }
  return { signer, agent };
}

/** Under the lease, on the fresh run: the state the step needs and the asker's side. */
async function admit(
  deps: Deps,
  spec: StepSpec<unknown, unknown>,
  run: RunRecord,
  asker: { signer: Address | null; agent?: AgentRecord },
): Promise<{ side: Side; agent?: AgentRecord }> {
  if (spec.by === "arbiter") {
    assertState(run, spec.from, spec.verb);
    return { side: "admin" };
  }
  if (spec.by === "claimer") {
    const [now, fresh, { minStake }, coverage] = await Promise.all([
      deps.clock.fresh(),
      requireAgent(deps, asker.agent!.id),
      deps.params.fresh(),
      run.requiredCoverage > 0n ? availableCoverage(deps, asker.agent!.id) : 0n,
    ]);
    const problems = checkClaim(run, fresh, now, minStake, coverage).problems;
    const runProblem = problems.find((p) => p.status === 400);
    if (runProblem) throw apiError("RUN_NOT_AVAILABLE", runProblem.message);
    const agentProblem = problems[0];
    if (agentProblem) {
      throw apiError(agentProblem.code as "AGENT_BANNED", agentProblem.message, { status: 403 });
    }
    return { side: "agent", agent: fresh };
  }
  if (spec.by !== "poster" && run.agentId === null) assertState(run, spec.from, spec.verb);
  const side = assertActor(run, asker.signer!, spec.by);
  assertState(run, spec.from, spec.verb);
  return { side };
}

/** Runs step `spec` on run `runId` with `input` (see the table in steps.ts). */
export async function runStep<I, X>(
  deps: Deps,
  spec: StepSpec<I, X>,
  p: { runId: number; signed?: Signed; input: I },
): Promise<RunStepReturnType<X>> {
  const generic = spec as unknown as StepSpec<unknown, unknown>;
  await getRun(deps, p.runId); // 404 before anything is consumed
  const asker = await authorize(deps, generic, p.runId, p.signed, p.input);
  let ctx: StepContext<I> | undefined;
  const relayed = await withRunLock(deps, p.runId, async () => {
    const run = await getRun(deps, p.runId);
    const { side, agent } = await admit(deps, generic, run, asker);
    ctx = { deps, run, input: p.input, signer: asker.signer, side, agent };
    const sent = await spec.send(ctx);
    await recordAction(deps, {
      runId: p.runId,
      action: spec.action,
      signer: asker.signer,
      agentId: agent?.id ?? run.agentId,
      txHash: sent.relayed.txHash,
      detail: { by: side, ...sent.detail },
    });
    return sent.relayed;
  });
  await waitForRunTx(deps, relayed);
  const run = await getRun(deps, p.runId);
  const extra = (await spec.after?.(ctx!, run, relayed.txHash)) as X;
  return { run, txHash: relayed.txHash, message: await spec.done(run, extra, ctx!), extra };
}

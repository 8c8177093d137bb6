// The run step table: every step after funding as data (who asks, from which states, the escrow call, the record,
// the follow-up, the answer), all run by the one pipeline in run-step.ts.
import { deliverableHashOf, type RunConsentAction } from "@agenthub/common/protocol";
import type { Address, Hex } from "viem";
import type { Deps } from "../../context.ts";
import { type AgentStatus, activeStake } from "../../domain/agent-status.ts";
import { apiError } from "../../errors.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { statusOf } from "../../stores/agents.ts";
import { emitBountyCompleted } from "../../stores/run-orgs.ts";
import type { RunRecord } from "../../stores/runs.ts";
import { emitOrgEvent } from "../../stores/webhook-outbox.ts";
import { requireAgent } from "../guards.ts";
import { type ConsentInput, requireConsent } from "./consent.ts";
import { chainNow, relayEscrow } from "./escrow.ts";
import { runStep, type Signed, type StepContext, type StepSpec } from "./run-step.ts";

export interface Consented {
  consent: ConsentInput;
}
export interface ClaimInput extends Consented {
  agentId: number;
  walletAddress: Address;
}
export interface SubmitInput extends Consented {
  /** The work itself (stored under its CID) or a bytes32 commitment to work delivered elsewhere. */
  deliverable?: string | Record<string, unknown>;
  deliverableHash?: Hex;
}
export interface FeedbackInput extends Consented {
  feedback: string;
}
export interface ReasonInput extends Consented {
  reason: string;
}
export interface ResolveInput {
  outcome: "agent" | "poster";
  note?: string;
}

export interface ClaimedAgent {
  id: number;
  status: AgentStatus;
  stakedAmount: string;
}

const onchain = (run: RunRecord) => run.onchainRunId!;

/** Relays `<action>BySig` with the consent the request carries (checked first: signer, deadline, nonce, signature). */
async function relayConsented(
  ctx: StepContext<Consented>,
  action: Exclude<RunConsentAction, "claim" | "submit">,
  detail?: Record<string, unknown>,
) {
  const { deps, run } = ctx;
  const consent = await requireConsent(deps, run, action, ctx.input.consent, ctx.signer!);
  return { relayed: await relayEscrow(deps, `${action}BySig`, [onchain(run), consent]), detail };
}

const completed = (ctx: StepContext<unknown>, run: RunRecord, txHash: string) =>
  emitBountyCompleted(ctx.deps, run, txHash);

const unavailable = "RUN_NOT_AVAILABLE";

export const RUN_STEPS = {
  claim: {
    action: "claim-run",
    by: "claimer",
    from: ["OPEN"],
    verb: "claim",
    send: async ({ deps, run, input, signer, agent }) => {
      const consent = await requireConsent(deps, run, "claim", input.consent, signer!, { agentId: agent!.id });
      const relayed = await relayEscrow(deps, "claimBySig", [onchain(run), BigInt(agent!.id), consent], {
        overrides: { RunEscrowInvalidState: unavailable, RunEscrowDeadlinePassed: unavailable },
      });
      return { relayed, detail: { walletAddress: signer } };
    },
    after: async ({ deps, agent }, run, txHash) => {
      const [updated, params] = await Promise.all([requireAgent(deps, agent!.id), deps.params.current()]);
      await emitOrgEvent(
        deps,
        "bounty.claimed",
        agent!.id,
        { bountyId: run.id, agentId: agent!.id, reward: run.reward.toString(), txHash },
        `bounty.claimed:${run.id}:${txHash.toLowerCase()}`,
      );
      return {
        id: agent!.id,
        status: statusOf(updated, await chainNow(deps), params.minStake),
        stakedAmount: activeStake(updated.stake).toString(),
      };
    },
    done: async (run, agent, { deps }) =>
      `Agent ${agent.id} claimed run ${run.id}. Start with POST /api/runs/${run.id}/start, submit before ${isoFromSeconds(run.claimedAt! + (await deps.params.current()).claimTimeout)} or the stake can be slashed.`,
  } satisfies StepSpec<ClaimInput, ClaimedAgent>,

  start: {
    action: "start-run",
    by: "agent",
    from: ["CLAIMED"],
    verb: "start",
    send: (ctx) => relayConsented(ctx, "start"),
    done: (run) => `Run ${run.id} is IN_PROGRESS.`,
  } satisfies StepSpec<Consented>,

  submit: {
    action: "submit-run",
    by: "agent",
    from: ["CLAIMED", "IN_PROGRESS", "REVISION_REQUESTED"],
    verb: "submit",
    send: async ({ deps, run, input, signer }) => {
      // The chain keeps the sha-256 of the stored JSON text: the deliverable's CID can be rebuilt from it, and the
      // agent's consent names it before anything is stored.
      const hash = (
        input.deliverable === undefined ? input.deliverableHash : deliverableHashOf(input.deliverable)
      ) as Hex;
      const consent = await requireConsent(deps, run, "submit", input.consent, signer!, { deliverableHash: hash });
      const stored = input.deliverable === undefined ? undefined : (await deps.ipfs.putJson(input.deliverable)).uri;
      const relayed = await relayEscrow(deps, "submitBySig", [onchain(run), hash, consent]);
      return { relayed, detail: stored ? { deliverableUri: stored } : {} };
    },
    done: (run) =>
      `Run ${run.id} is SUBMITTED${run.revisions ? ` (after ${run.revisions} revision(s))` : ""}; waiting for the poster.`,
  } satisfies StepSpec<SubmitInput>,

  approve: {
    action: "approve-run",
    by: "poster",
    from: ["SUBMITTED"],
    verb: "approve",
    send: (ctx) => relayConsented(ctx, "approve"),
    after: completed,
    done: (run, _, { deps }) =>
      `Run ${run.id} is APPROVED: ${run.reward} base units added to agent ${run.agentId}'s rewards, paid to its owner by the next payout (within ${deps.env.REWARD_PAYOUT_INTERVAL_SECONDS} s); ${run.fee} kept as the platform fee.`,
  } satisfies StepSpec<Consented, void>,

  "request-revision": {
    action: "request-revision",
    by: "poster",
    from: ["SUBMITTED"],
    verb: "request a revision of",
    send: (ctx) => {
      const { run } = ctx;
      if (run.revisions >= run.maxRevisions) {
        throw apiError(
          "REVISIONS_EXHAUSTED",
          `all ${run.maxRevisions} revision(s) are used; approve, reject or dispute`,
        );
      }
      return relayConsented(ctx, "requestRevision", { feedback: ctx.input.feedback });
    },
    done: (run) =>
      `Revision ${run.revisions} of ${run.maxRevisions} requested for run ${run.id}; if the agent does not resubmit in time (the escrow's claim timeout, from now) the poster may slash its stake.`,
  } satisfies StepSpec<FeedbackInput>,

  reject: {
    action: "reject-run",
    by: "poster",
    from: ["SUBMITTED"],
    verb: "reject",
    send: (ctx) => {
      const { run } = ctx;
      if (run.revisions < run.maxRevisions) {
        throw apiError(
          "REVISIONS_REMAINING",
          `a run can be rejected only after all revisions: ${run.revisions} of ${run.maxRevisions} used`,
        );
      }
      return relayConsented(ctx, "reject", { reason: ctx.input.reason });
    },
    done: (run) => `Run ${run.id} is REJECTED: ${run.reward + run.fee} base units refunded to the poster.`,
  } satisfies StepSpec<ReasonInput>,

  dispute: {
    action: "dispute-run",
    by: "party",
    from: ["SUBMITTED", "REVISION_REQUESTED"],
    verb: "dispute",
    send: (ctx) => relayConsented(ctx, "dispute", { reason: ctx.input.reason }),
    done: (run) => `Run ${run.id} is DISPUTED; an arbiter resolves it for the agent or the poster.`,
  } satisfies StepSpec<ReasonInput>,

  cancel: {
    action: "cancel-run",
    by: "poster",
    from: ["OPEN"],
    verb: "cancel",
    send: (ctx) => relayConsented(ctx, "cancel"),
    done: (run) => `Run ${run.id} is CANCELLED: ${run.reward + run.fee} base units refunded to the poster.`,
  } satisfies StepSpec<Consented>,

  "timeout-slash": {
    action: "timeout-slash",
    by: "poster",
    from: ["CLAIMED", "IN_PROGRESS", "REVISION_REQUESTED"],
    verb: "timeout-slash",
    send: async ({ deps, run }) => {
      // The escrow's timeout (a governance parameter) runs from the claim, or from the last revision request.
      const revision = run.state === "REVISION_REQUESTED";
      const availableAt =
        (revision ? run.revisionRequestedAt! : run.claimedAt!) + (await deps.params.fresh()).claimTimeout;
      if ((await chainNow(deps)) < availableAt) {
        throw apiError(
          "TIMEOUT_NOT_REACHED",
          revision
            ? `the agent has until ${isoFromSeconds(availableAt)} to resubmit after the revision request`
            : `the agent has until ${isoFromSeconds(availableAt)} to submit after its claim`,
        );
      }
      return { relayed: await relayEscrow(deps, "timeoutSlash", [onchain(run)]), detail: { agentId: run.agentId } };
    },
    done: (run) =>
      `Run ${run.id} TIMED_OUT: reward + fee refunded, agent ${run.failedAgentId}'s stake slashed to the poster; the agent is FROZEN until it stakes again (BANNED at its third slash).`,
  } satisfies StepSpec<Record<string, never>>,

  resolve: {
    action: "resolve-run",
    by: "arbiter",
    from: ["DISPUTED"],
    verb: "resolve",
    send: async ({ deps, run, input }) => {
      if (!deps.arbiter) {
        throw apiError(
          "ARBITER_NOT_CONFIGURED",
          "disputes are resolved by RunEscrow's ARBITER_ROLE (not the relayer): set ARBITER_PRIVATE_KEY, or resolve from the arbiter's wallet",
        );
      }
      const relayed = await deps.arbiter.resolve(onchain(run), input.outcome === "agent");
      return {
        relayed,
        detail: { arbiter: deps.arbiter.address, outcome: input.outcome, ...(input.note ? { note: input.note } : {}) },
      };
    },
    // Resolved for the agent, the run is APPROVED and paid: a completion like an approval by the poster.
    after: async (ctx, run, txHash) => {
      if (ctx.input.outcome === "agent") await completed(ctx, run, txHash);
    },
    done: (run, _, { input }) =>
      input.outcome === "agent"
        ? `Dispute resolved for the agent: run ${run.id} is APPROVED; the reward is paid to the agent's owner by the next payout.`
        : `Dispute resolved for the poster: agent ${run.failedAgentId}'s stake was slashed to the poster and run ${run.id} is OPEN again.`,
  } satisfies StepSpec<ResolveInput, void>,
} as const;

type Steps = typeof RUN_STEPS;
export type RunStepName = keyof Steps;
type InputOf<K extends RunStepName> = Steps[K] extends StepSpec<infer I, infer _X> ? I : never;
type ExtraOf<K extends RunStepName> = Steps[K] extends StepSpec<infer _I, infer X> ? X : never;

/** Step `name` of the table on run `runId`; `signed` is required for every step but resolve (the admin route). */
export function runStepByName<K extends RunStepName>(
  deps: Deps,
  name: K,
  p: { runId: number; signed?: Signed; input: InputOf<K> },
) {
  return runStep<InputOf<K>, ExtraOf<K>>(deps, RUN_STEPS[name] as unknown as StepSpec<InputOf<K>, ExtraOf<K>>, p);
}

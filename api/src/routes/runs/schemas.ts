import { z } from "@hono/zod-openapi";
import { RUN_STATES } from "../../domain/run-state.ts";
import { pathId } from "../../lib/schemas.ts";
import { agentStatus } from "../agents/schemas.ts";

export const runState = z.enum(RUN_STATES).openapi("RunState");

export const runIdParam = z.object({ id: pathId("id", "run id (bountyId)") });

export const runListItem = z
  .object({
    bountyId: z.number().openapi({ description: "run id; stable from DRAFT on" }),
    onchainRunId: z.string().nullable().openapi({ description: "RunEscrow run id once funded" }),
    posterAddress: z.string(),
    title: z.string(),
    ipfsHash: z.string().openapi({ description: "ipfs:// URI of the request JSON" }),
    reward: z.string().openapi({ description: "USDC base units" }),
    fee: z.string().openapi({
      description:
        "platform fee at the escrow's fee rate (RunEscrow.feeBps: 5% at deployment, set by governance; a funded run keeps its own), escrowed with the reward",
    }),
    deadline: z.string(),
    state: runState,
    claimedBy: z.number().nullable(),
    revisions: z.number(),
    maxRevisions: z.number(),
    requiredCoverage: z.string().openapi({
      description:
        'USDC base units of active insurance coverage an agent needs to claim the run: the cover (agreed damages) its poster declared, fixed on chain at funding, which insurance pays (less the stake slashed to the poster) after a timeout or a lost dispute; "0" when none',
    }),
    coverPending: z.boolean().openapi({
      description:
        "a draft that declares a cover (the funding fixes it on chain with the run's other terms; a funded run's cover never changes)",
    }),
    createdAt: z.string(),
  })
  .openapi("RunListItem");

export const runDetail = runListItem
  .extend({
    description: z.string(),
    claimedByWallet: z.string().nullable(),
    stake: z.string().nullable().openapi({ description: "the claiming agent's active stake, USDC base units" }),
    deliverableHash: z.string().nullable(),
    deliverableUri: z.string().nullable().openapi({ description: "ipfs:// URI when the deliverable was stored here" }),
    claimedAt: z.string().nullable(),
    submittedAt: z.string().nullable(),
    failedAgentId: z.number().nullable().openapi({ description: "agent that last failed this run" }),
    fundingTx: z.string().nullable(),
  })
  .openapi("Run");

export const runActionResult = z
  .object({ success: z.boolean(), run: runDetail, txHash: z.string().nullable(), message: z.string() })
  .openapi("RunActionResult");

export const eligibility = z
  .object({
    eligible: z.boolean(),
    reasons: z.array(z.string()).openapi({ description: "stable codes of every failed condition" }),
    messages: z.array(z.string()),
    agent: z.object({
      id: z.number(),
      status: agentStatus,
      stakedAmount: z.string(),
      hasMinStake: z.boolean(),
      availableCoverage: z
        .string()
        .openapi({ description: "insurance coverage not pending withdrawal (InsurancePool), USDC base units" }),
    }),
    run: z.object({ id: z.number(), state: runState, reward: z.string(), requiredCoverage: z.string() }),
  })
  .openapi("ClaimEligibility");

export const runEvent = z
  .object({
    kind: z.string(),
    state: runState,
    actor: z.string().nullable().openapi({ description: "who asked for it (signer); the sender for direct calls" }),
    sender: z.string().nullable().openapi({ description: "transaction sender (the relayer for gasless steps)" }),
    agentId: z.number().nullable(),
    amount: z.string().nullable(),
    txHash: z.string().nullable(),
    blockNumber: z.number().nullable(),
    timestamp: z.string(),
    note: z.string().nullable().openapi({ description: "revision feedback, rejection or dispute reason" }),
  })
  .openapi("RunEvent");

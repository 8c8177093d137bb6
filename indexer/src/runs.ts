import { type Context, type Event, ponder } from "ponder:registry";
import { agentReward, agentRunStats, feeSweep, run, runEvent } from "ponder:schema";
import type { Address } from "viem";
import { recordCredit } from "./lib/credits.ts";
import { claimCounts } from "./reputation-rule.ts";

type RunLog = Event<"RunEscrow:RunClaimed">;

async function bumpStats(
  context: Context,
  agentId: bigint,
  timestamp: bigint,
  change: { claimed?: number; completed?: number; failed?: number; volume?: bigint },
) {
  const current = await context.db.find(agentRunStats, { agentId });
  const base = current ?? {
    agentId,
    totalClaimed: 0,
    completions: 0,
    failures: 0,
    totalVolume: 0n,
    updatedAt: timestamp,
  };
  const next = {
    totalClaimed: base.totalClaimed + (change.claimed ?? 0),
    completions: base.completions + (change.completed ?? 0),
    failures: base.failures + (change.failed ?? 0),
    totalVolume: base.totalVolume + (change.volume ?? 0n),
    updatedAt: timestamp,
  };
  await context.db
    .insert(agentRunStats)
    .values({ ...base, ...next })
    .onConflictDoUpdate(next);
}

/** Whether the run's current claim counts toward its agent's reputation (decided when it was claimed). */
async function countsForReputation(context: Context, runId: bigint): Promise<boolean> {
  return (await context.db.find(run, { id: runId }))?.reputationEligible === true;
}

async function recordEvent(
  context: Context,
  event: Pick<RunLog, "id" | "block" | "transaction" | "log">,
  runId: bigint,
  kind: string,
  state: string,
  extra: { agentId?: bigint | null; amount?: bigint } = {},
) {
  await context.db.insert(runEvent).values({
    id: event.id,
    runId,
    kind,
    state,
    agentId: extra.agentId ?? null,
    actor: event.transaction.from,
    amount: extra.amount ?? null,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    logIndex: event.log.logIndex,
    timestamp: event.block.timestamp,
  });
}

ponder.on("RunEscrow:RunCreated", async ({ event, context }) => {
  const { runId, poster, reward, deadline, maxRevisions, metadataUri } = event.args;
  // The event leaves the fee out (gas): the escrow keeps each run's fee rate, so getRun's fee is the one the run
  // was funded with at any later block (Ponder reads it at the event's block, cached).
  const { fee } = await context.client.readContract({
    abi: context.contracts.RunEscrow.abi,
    address: context.contracts.RunEscrow.address as Address,
    functionName: "getRun",
    args: [runId],
  });
  await context.db.insert(run).values({
    id: runId,
    poster,
    reward,
    fee,
    deadline: BigInt(deadline),
    maxRevisions: Number(maxRevisions),
    revisions: 0,
    state: "Open",
    metadataUri,
    createdAt: event.block.timestamp,
    createdTx: event.transaction.hash,
    updatedAt: event.block.timestamp,
  });
  await recordEvent(context, event, runId, "CREATED", "Open", { amount: reward + fee });
});

// A covered run's agreed damages, emitted right after RunCreated and never changed: what an agent's coverage must be
// to claim it through the API, and what insurance pays after a verified failure.
ponder.on("RunEscrow:RunCoverSet", async ({ event, context }) => {
  const { runId, amount } = event.args;
  await context.db.update(run, { id: runId }).set({ requiredCoverage: amount, updatedAt: event.block.timestamp });
});

ponder.on("RunEscrow:RunClaimed", async ({ event, context }) => {
  const { runId, agentId } = event.args;
  const ts = event.block.timestamp;
  const current = await context.db.find(run, { id: runId });
  const eligible = current ? await claimCounts(context, current, agentId, ts) : false;
  await context.db
    .update(run, { id: runId })
    .set({ state: "Claimed", agentId, claimedAt: ts, reputationEligible: eligible, updatedAt: ts });
  if (eligible) await bumpStats(context, agentId, ts, { claimed: 1 });
  await recordEvent(context, event, runId, "CLAIMED", "Claimed", { agentId });
});

ponder.on("RunEscrow:RunStarted", async ({ event, context }) => {
  const { runId, agentId } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(run, { id: runId }).set({ state: "InProgress", updatedAt: ts });
  await recordEvent(context, event, runId, "STARTED", "InProgress", { agentId });
});

ponder.on("RunEscrow:RunSubmitted", async ({ event, context }) => {
  const { runId, agentId, deliverableHash } = event.args;
  const ts = event.block.timestamp;
  await context.db
    .update(run, { id: runId })
    .set({ state: "Submitted", deliverableHash, submittedAt: ts, updatedAt: ts });
  await recordEvent(context, event, runId, "SUBMITTED", "Submitted", { agentId });
});

ponder.on("RunEscrow:RevisionRequested", async ({ event, context }) => {
  const { runId, agentId, revisions } = event.args;
  const ts = event.block.timestamp;
  await context.db
    .update(run, { id: runId })
    .set({ state: "RevisionRequested", revisions: Number(revisions), revisionRequestedAt: ts, updatedAt: ts });
  await recordEvent(context, event, runId, "REVISION_REQUESTED", "RevisionRequested", { agentId });
});

ponder.on("RunEscrow:RunCompleted", async ({ event, context }) => {
  const { runId, agentId, reward } = event.args;
  const ts = event.block.timestamp;
  await context.db
    .insert(agentReward)
    .values({ agentId, unpaid: reward, totalPaid: 0n, owedSince: ts, updatedAt: ts })
    .onConflictDoUpdate((row) => ({
      unpaid: row.unpaid + reward,
      owedSince: row.unpaid === 0n ? ts : row.owedSince,
      updatedAt: ts,
    }));
  if (await countsForReputation(context, runId))
    await bumpStats(context, agentId, ts, { completed: 1, volume: reward });
  await context.db.update(run, { id: runId }).set({ state: "Completed", updatedAt: ts });
  await recordEvent(context, event, runId, "COMPLETED", "Completed", { agentId, amount: reward });
});

ponder.on("RunEscrow:RunRejected", async ({ event, context }) => {
  const { runId, agentId } = event.args;
  const ts = event.block.timestamp;
  if (await countsForReputation(context, runId)) await bumpStats(context, agentId, ts, { failed: 1 });
  await context.db
    .update(run, { id: runId })
    .set({ state: "Rejected", failedAgentId: agentId, failureKind: "Rejected", updatedAt: ts });
  await recordEvent(context, event, runId, "REJECTED", "Rejected", { agentId });
});

ponder.on("RunEscrow:RunDisputed", async ({ event, context }) => {
  const { runId, agentId } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(run, { id: runId }).set({ state: "Disputed", updatedAt: ts });
  await recordEvent(context, event, runId, "DISPUTED", "Disputed", { agentId });
});

ponder.on("RunEscrow:DisputeResolved", async ({ event, context }) => {
  const { runId, agentId, forAgent, slashed } = event.args;
  const ts = event.block.timestamp;
  if (forAgent) {
    // Payment and completion stats come with the RunCompleted event of the same transaction.
    await recordEvent(context, event, runId, "DISPUTE_RESOLVED_FOR_AGENT", "Completed", { agentId });
    return;
  }
  if (await countsForReputation(context, runId)) await bumpStats(context, agentId, ts, { failed: 1 });
  await context.db.update(run, { id: runId }).set({
    state: "Open",
    agentId: null,
    claimedAt: null,
    submittedAt: null,
    deliverableHash: null,
    revisions: 0,
    revisionRequestedAt: null,
    reputationEligible: null,
    failedAgentId: agentId,
    failureKind: "DisputeLost",
    updatedAt: ts,
  });
  await recordEvent(context, event, runId, "DISPUTE_RESOLVED_FOR_POSTER", "Open", { agentId, amount: slashed });
});

// The poster let the review window pass: whoever released it is recorded; the RunCompleted that follows in the same
// transaction completes the run, its stats and its payment exactly as an approval.
ponder.on("RunEscrow:RunReleasedAfterReview", async ({ event, context }) => {
  const { runId, agentId } = event.args;
  await recordEvent(context, event, runId, "RELEASED_AFTER_REVIEW", "Completed", { agentId });
});

// No resolution within the dispute window: reward + fee refunded to the poster, no slash, no failure (the agent's
// stats count neither a completion nor a failure).
ponder.on("RunEscrow:DisputeExpired", async ({ event, context }) => {
  const { runId, agentId, refunded } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(run, { id: runId }).set({ state: "DisputeExpired", updatedAt: ts });
  await recordEvent(context, event, runId, "DISPUTE_EXPIRED", "DisputeExpired", { agentId, amount: refunded });
});

ponder.on("RunEscrow:RunCancelled", async ({ event, context }) => {
  const { runId } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(run, { id: runId }).set({ state: "Cancelled", updatedAt: ts });
  await recordEvent(context, event, runId, "CANCELLED", "Cancelled");
});

ponder.on("RunEscrow:RunTimedOut", async ({ event, context }) => {
  const { runId, agentId, slashed } = event.args;
  const ts = event.block.timestamp;
  if (await countsForReputation(context, runId)) await bumpStats(context, agentId, ts, { failed: 1 });
  await context.db
    .update(run, { id: runId })
    .set({ state: "TimedOut", failedAgentId: agentId, failureKind: "TimedOut", updatedAt: ts });
  await recordEvent(context, event, runId, "TIMED_OUT", "TimedOut", { agentId, amount: slashed });
});

ponder.on("RunEscrow:FeesSwept", async ({ event, context }) => {
  await context.db.insert(feeSweep).values({
    id: event.id,
    treasury: event.args.treasury,
    amount: event.args.amount,
    txHash: event.transaction.hash,
    timestamp: event.block.timestamp,
  });
});

ponder.on("RunEscrow:RewardsPaid", async ({ event, context }) => {
  const { agentId, amount } = event.args;
  const ts = event.block.timestamp;
  // payRewards pays an agent's whole rewards: nothing is left unpaid.
  await context.db
    .update(agentReward, { agentId })
    .set((row) => ({ unpaid: row.unpaid - amount, totalPaid: row.totalPaid + amount, owedSince: null, updatedAt: ts }));
});

ponder.on("RunEscrow:PaymentDeferred", async ({ event, context }) => {
  await recordCredit(context, "RunEscrow", event.args.to, event.args.amount, event.block.timestamp);
});

ponder.on("RunEscrow:CreditWithdrawn", async ({ event, context }) => {
  await recordCredit(context, "RunEscrow", event.args.to, -event.args.amount, event.block.timestamp);
});

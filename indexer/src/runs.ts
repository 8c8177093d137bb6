import { type Context, type Event, ponder } from "ponder:registry";
import { agentRunStats, run, runEvent } from "ponder:schema";

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
  const { runId, poster, reward, fee, deadline, maxRevisions, metadataUri } = event.args;
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

ponder.on("RunEscrow:RunClaimed", async ({ event, context }) => {
  const { runId, agentId } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(run, { id: runId }).set({ state: "Claimed", agentId, claimedAt: ts, updatedAt: ts });
  await bumpStats(context, agentId, ts, { claimed: 1 });
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
    .set({ state: "RevisionRequested", revisions: Number(revisions), updatedAt: ts });
  await recordEvent(context, event, runId, "REVISION_REQUESTED", "RevisionRequested", { agentId });
});

ponder.on("RunEscrow:RunCompleted", async ({ event, context }) => {
  const { runId, agentId, reward } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(run, { id: runId }).set({ state: "Completed", updatedAt: ts });
  await bumpStats(context, agentId, ts, { completed: 1, volume: reward });
  await recordEvent(context, event, runId, "COMPLETED", "Completed", { agentId, amount: reward });
});

ponder.on("RunEscrow:RunRejected", async ({ event, context }) => {
  const { runId, agentId } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(run, { id: runId }).set({ state: "Rejected", failedAgentId: agentId, updatedAt: ts });
  await bumpStats(context, agentId, ts, { failed: 1 });
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
  await context.db.update(run, { id: runId }).set({
    state: "Open",
    agentId: null,
    claimedAt: null,
    submittedAt: null,
    deliverableHash: null,
    revisions: 0,
    failedAgentId: agentId,
    updatedAt: ts,
  });
  await bumpStats(context, agentId, ts, { failed: 1 });
  await recordEvent(context, event, runId, "DISPUTE_RESOLVED_FOR_POSTER", "Open", { agentId, amount: slashed });
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
  await context.db.update(run, { id: runId }).set({ state: "TimedOut", failedAgentId: agentId, updatedAt: ts });
  await bumpStats(context, agentId, ts, { failed: 1 });
  await recordEvent(context, event, runId, "TIMED_OUT", "TimedOut", { agentId, amount: slashed });
});

import { ponder } from "ponder:registry";
import { insuranceCoverage, insuranceEvent } from "ponder:schema";
import { minBig } from "./lib/bigint.ts";

ponder.on("InsurancePool:CoverageStaked", async ({ event, context }) => {
  const { agentId, from, amount } = event.args;
  const ts = event.block.timestamp;
  await context.db
    .insert(insuranceCoverage)
    .values({ agentId, amount, pendingWithdrawal: 0n, updatedAt: ts })
    .onConflictDoUpdate((row) => ({ amount: row.amount + amount, updatedAt: ts }));
  await context.db.insert(insuranceEvent).values({
    id: event.id,
    agentId,
    kind: "STAKED",
    account: from,
    amount,
    txHash: event.transaction.hash,
    timestamp: ts,
  });
});

ponder.on("InsurancePool:CoverageWithdrawalRequested", async ({ event, context }) => {
  const { agentId, amount, availableAt } = event.args;
  const ts = event.block.timestamp;
  await context.db
    .update(insuranceCoverage, { agentId })
    .set({ pendingWithdrawal: amount, withdrawalAvailableAt: BigInt(availableAt), updatedAt: ts });
  await context.db.insert(insuranceEvent).values({
    id: event.id,
    agentId,
    kind: "WITHDRAWAL_REQUESTED",
    account: event.transaction.from,
    amount,
    txHash: event.transaction.hash,
    timestamp: ts,
  });
});

ponder.on("InsurancePool:CoverageWithdrawn", async ({ event, context }) => {
  const { agentId, to, amount } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(insuranceCoverage, { agentId }).set((row) => ({
    amount: row.amount - amount,
    pendingWithdrawal: 0n,
    withdrawalAvailableAt: null,
    updatedAt: ts,
  }));
  await context.db.insert(insuranceEvent).values({
    id: event.id,
    agentId,
    kind: "WITHDRAWN",
    account: to,
    amount,
    txHash: event.transaction.hash,
    timestamp: ts,
  });
});

ponder.on("InsurancePool:ClaimPaid", async ({ event, context }) => {
  const { runId, agentId, poster, amount } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(insuranceCoverage, { agentId }).set((row) => {
    const left = row.amount - amount;
    return {
      amount: left,
      pendingWithdrawal: minBig(row.pendingWithdrawal, left),
      updatedAt: ts,
    };
  });
  await context.db.insert(insuranceEvent).values({
    id: event.id,
    agentId,
    kind: "CLAIM_PAID",
    account: poster,
    amount,
    runId,
    txHash: event.transaction.hash,
    timestamp: ts,
  });
});

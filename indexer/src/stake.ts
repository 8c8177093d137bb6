import { ponder } from "ponder:registry";
import { stake, stakeEvent } from "ponder:schema";
import { type Address, zeroAddress } from "viem";
import { minBig } from "./lib/bigint.ts";
import { recordCredit } from "./lib/credits.ts";

/** IStakeVault.TrustState by index. */
const TRUST_STATES = ["Good", "Frozen", "Banned"] as const;

/** Total order of events on the chain: block number, then log index. */
const seq = (event: { block: { number: bigint }; log: { logIndex: number } }) =>
  event.block.number * 1_000_000n + BigInt(event.log.logIndex);

function emptyStake(agentId: bigint, timestamp: bigint) {
  return {
    agentId,
    amount: 0n,
    pendingWithdrawal: 0n,
    stakedAt: null as bigint | null,
    totalSlashed: 0n,
    slashCount: 0,
    trustState: "Good",
    strikes: 0,
    updatedAt: timestamp,
  };
}

ponder.on("StakeVault:Staked", async ({ event, context }) => {
  const { agentId, from, amount } = event.args;
  const ts = event.block.timestamp;
  const current = (await context.db.find(stake, { agentId })) ?? emptyStake(agentId, ts);
  const total = current.amount + amount;
  // stakedAt restarts whenever the stake rises from below the minimum (first stake, or re-stake after a slash): the
  // minimum in force at this block, a governance parameter (Ponder reads it at the event's block, cached).
  const minStake = await context.client.readContract({
    abi: context.contracts.StakeVault.abi,
    address: context.contracts.StakeVault.address as Address,
    functionName: "minStake",
  });
  const crossed = current.amount < minStake && total >= minStake;
  await context.db
    .insert(stake)
    .values({
      ...current,
      amount: total,
      stakedAt: crossed ? ts : (current.stakedAt ?? null),
      lastStakeSeq: seq(event),
      updatedAt: ts,
    })
    .onConflictDoUpdate({
      amount: total,
      stakedAt: crossed ? ts : (current.stakedAt ?? null),
      lastStakeSeq: seq(event),
      updatedAt: ts,
    });
  await context.db.insert(stakeEvent).values({
    id: event.id,
    agentId,
    kind: "STAKED",
    account: from,
    amount,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: ts,
  });
});

ponder.on("StakeVault:Slashed", async ({ event, context }) => {
  const { agentId, beneficiary, amount, bps, reason } = event.args;
  const ts = event.block.timestamp;
  const current = (await context.db.find(stake, { agentId })) ?? emptyStake(agentId, ts);
  const remaining = current.amount - amount;
  await context.db
    .insert(stake)
    .values({ ...current, amount: remaining })
    .onConflictDoUpdate({
      amount: remaining,
      pendingWithdrawal: minBig(current.pendingWithdrawal, remaining),
      totalSlashed: current.totalSlashed + amount,
      slashCount: current.slashCount + 1,
      lastSlashedAt: ts,
      lastSlashSeq: seq(event),
      updatedAt: ts,
    });
  await context.db.insert(stakeEvent).values({
    id: event.id,
    agentId,
    kind: "SLASHED",
    account: beneficiary,
    amount,
    bps: Number(bps),
    reason,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: ts,
  });
});

ponder.on("StakeVault:WithdrawalRequested", async ({ event, context }) => {
  const { agentId, owner, amount, availableAt } = event.args;
  const ts = event.block.timestamp;
  await context.db
    .update(stake, { agentId })
    .set({ pendingWithdrawal: amount, withdrawalAvailableAt: BigInt(availableAt), updatedAt: ts });
  await context.db.insert(stakeEvent).values({
    id: event.id,
    agentId,
    kind: "WITHDRAWAL_REQUESTED",
    account: owner,
    amount,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: ts,
  });
});

ponder.on("StakeVault:Withdrawn", async ({ event, context }) => {
  const { agentId, to, amount } = event.args;
  const ts = event.block.timestamp;
  await context.db.update(stake, { agentId }).set((row) => ({
    amount: row.amount - amount,
    pendingWithdrawal: 0n,
    withdrawalAvailableAt: null,
    updatedAt: ts,
  }));
  await context.db.insert(stakeEvent).values({
    id: event.id,
    agentId,
    kind: "WITHDRAWN",
    account: to,
    amount,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: ts,
  });
});

/** The vault's own trust state: the API reads FROZEN and BANNED from here (the chain decides who may work). */
ponder.on("StakeVault:TrustStateChanged", async ({ event, context }) => {
  const { agentId, state, strikes, reason } = event.args;
  const ts = event.block.timestamp;
  const trust = {
    trustState: TRUST_STATES[state] ?? `Unknown(${state})`,
    strikes: Number(strikes),
    trustReason: reason,
    trustChangedAt: ts,
    updatedAt: ts,
  };
  await context.db
    .insert(stake)
    .values({ ...emptyStake(agentId, ts), ...trust })
    .onConflictDoUpdate(trust);
  await context.db.insert(stakeEvent).values({
    id: event.id,
    agentId,
    kind: "TRUST_STATE",
    account: zeroAddress,
    amount: 0n,
    reason: `${trust.trustState}: ${reason}`,
    txHash: event.transaction.hash,
    blockNumber: event.block.number,
    timestamp: ts,
  });
});

ponder.on("StakeVault:PaymentDeferred", async ({ event, context }) => {
  await recordCredit(context, "StakeVault", event.args.to, event.args.amount, event.block.timestamp);
});

ponder.on("StakeVault:CreditWithdrawn", async ({ event, context }) => {
  await recordCredit(context, "StakeVault", event.args.to, -event.args.amount, event.block.timestamp);
});

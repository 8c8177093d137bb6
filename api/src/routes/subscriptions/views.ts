// Subscription rows as the API answers them.
import { isoFromSeconds, isoOrNull } from "../../lib/time.ts";
import type { SubscriptionRow, subscriptionRuns } from "../../stores/subscriptions.ts";

export function toSubscription(row: SubscriptionRow) {
  const perRun = BigInt(row.rewardPerRun) + BigInt(row.feePerRun);
  return {
    id: row.id,
    posterAddress: row.posterAddress,
    cadence: row.cadence,
    interval: row.intervalLabel,
    everySeconds: row.everySeconds,
    task: row.task,
    instructions: row.instructions,
    totalRuns: row.totalRuns,
    runsCreated: row.runsCreated,
    runsRemaining: row.totalRuns === null ? null : row.totalRuns - row.runsCreated,
    rewardPerRun: row.rewardPerRun,
    platformFeePerRun: row.feePerRun,
    totalPerRun: perRun.toString(),
    balanceRemaining: row.balanceRemaining,
    totalFunded: row.totalFunded,
    refunded: row.refunded,
    vaultSubscriptionId: row.vaultId,
    status: row.status,
    startsAt: isoFromSeconds(row.startsAt),
    nextRunAt: isoOrNull(row.nextRunAt),
    createdAt: row.createdAt.toISOString(),
    updatedAt: row.updatedAt.toISOString(),
  };
}

type SlotRow = Awaited<ReturnType<typeof subscriptionRuns>>["rows"][number];

export const toSubscriptionRun = (row: SlotRow) => ({
  slot: row.slot,
  bountyId: row.runId,
  scheduledFor: isoFromSeconds(row.scheduledFor),
  amount: row.amount,
  status: row.status as "PENDING" | "CREATED",
  txHash: row.txHash,
  createdAt: row.createdAt.toISOString(),
});

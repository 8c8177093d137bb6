// Subscriptions: rows (a mirror of the SubscriptionVault, see vault.ts) and their views.
import type { Deps } from "../../context.ts";
import { ApiError, errors } from "../../errors.ts";

export const SUBSCRIPTION_STATUSES = ["ACTIVE", "PAUSED", "EXHAUSTED", "COMPLETED", "CANCELLED"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface SubscriptionRow {
  id: string;
  poster_address: string;
  instructions: string;
  task: string;
  cadence: string;
  interval_label: string;
  every_seconds: number;
  total_runs: number | null;
  runs_created: number;
  reward_per_run: string;
  fee_per_run: string;
  balance_remaining: string;
  total_funded: string;
  forfeited: string;
  refunded: string;
  vault_id: string | null;
  status: SubscriptionStatus;
  starts_at: string;
  next_run_at: string | null;
  created_at: Date;
  updated_at: Date;
}

export const iso = (seconds: bigint | string | null) =>
  seconds === null ? null : new Date(Number(seconds) * 1000).toISOString();

export function toSubscription(row: SubscriptionRow) {
  const perRun = BigInt(row.reward_per_run) + BigInt(row.fee_per_run);
  return {
    id: Number(row.id),
    posterAddress: row.poster_address,
    cadence: row.cadence,
    interval: row.interval_label,
    everySeconds: row.every_seconds,
    task: row.task,
    instructions: row.instructions,
    totalRuns: row.total_runs,
    runsCreated: row.runs_created,
    runsRemaining: row.total_runs === null ? null : row.total_runs - row.runs_created,
    rewardPerRun: row.reward_per_run,
    platformFeePerRun: row.fee_per_run,
    totalPerRun: perRun.toString(),
    balanceRemaining: row.balance_remaining,
    totalFunded: row.total_funded,
    refunded: row.refunded,
    vaultSubscriptionId: row.vault_id === null ? null : Number(row.vault_id),
    status: row.status,
    startsAt: iso(row.starts_at)!,
    nextRunAt: iso(row.next_run_at),
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  };
}
export type SubscriptionView = ReturnType<typeof toSubscription>;

export async function findSubscription(deps: Deps, id: number): Promise<SubscriptionRow> {
  const r = await deps.pool.query<SubscriptionRow>("select * from api.subscription where id = $1", [id]);
  const row = r.rows[0];
  if (!row) throw errors.notFound("SUBSCRIPTION_NOT_FOUND", `subscription ${id} does not exist`);
  return row;
}

/** A page of the runs subscription `id` created, oldest first, and their count. */
export async function subscriptionRuns(deps: Deps, id: number, page: { limit: number; offset: number }) {
  const count = await deps.pool.query<{ n: number }>(
    "select count(*)::int n from api.subscription_run where subscription_id = $1",
    [id],
  );
  const r = await deps.pool.query<{
    slot: number;
    run_id: string;
    scheduled_for: string;
    amount: string;
    status: string;
    tx_hash: string | null;
    created_at: Date;
  }>(
    `select slot, run_id, scheduled_for, amount, status, tx_hash, created_at from api.subscription_run
      where subscription_id = $1 order by slot limit $2 offset $3`,
    [id, page.limit, page.offset],
  );
  const runs = r.rows.map((row) => ({
    slot: row.slot,
    bountyId: Number(row.run_id),
    scheduledFor: iso(row.scheduled_for)!,
    amount: row.amount,
    status: row.status as "PENDING" | "CREATED",
    txHash: row.tx_hash,
    createdAt: row.created_at.toISOString(),
  }));
  return { runs, total: count.rows[0]!.n };
}

export const txAlreadyUsed = (hash: string) =>
  new ApiError(400, "TX_ALREADY_USED", `transaction ${hash} already funded a subscription`);

// Subscriptions: rows, views, the platform subscription account and USDC payment proofs.
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress, type Hex, isAddressEqual, parseEventLogs } from "viem";
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
  total_runs: number;
  runs_created: number;
  reward_per_run: string;
  fee_per_run: string;
  balance_remaining: string;
  total_funded: string;
  forfeited: string;
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
    runsRemaining: row.total_runs - row.runs_created,
    rewardPerRun: row.reward_per_run,
    platformFeePerRun: row.fee_per_run,
    totalPerRun: perRun.toString(),
    balanceRemaining: row.balance_remaining,
    totalFunded: row.total_funded,
    forfeited: row.forfeited,
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

export async function subscriptionRuns(deps: Deps, id: number) {
  const r = await deps.pool.query<{
    slot: number;
    run_id: string;
    scheduled_for: string;
    amount: string;
    status: string;
    tx_hash: string | null;
    created_at: Date;
  }>(
    "select slot, run_id, scheduled_for, amount, status, tx_hash, created_at from api.subscription_run where subscription_id = $1 order by slot",
    [id],
  );
  return r.rows.map((row) => ({
    slot: row.slot,
    bountyId: Number(row.run_id),
    scheduledFor: iso(row.scheduled_for)!,
    amount: row.amount,
    status: row.status as "PENDING" | "CREATED",
    txHash: row.tx_hash,
    createdAt: row.created_at.toISOString(),
  }));
}

const accounts = new WeakMap<object, Address>();

/**
 * The platform's subscription account: the relayer's address. Prepaid balances are USDC transfers to it, and it
 * pays each subscription run's reward + fee into the escrow (createSponsoredRun).
 */
export async function subscriptionAccount(deps: Deps): Promise<Address> {
  const known = accounts.get(deps);
  if (known) return known;
  const address = await deps.relayer.address().catch(() => undefined);
  if (!address) throw errors.unavailable("RELAYER_UNAVAILABLE", "the subscription account (relayer) is unreachable");
  const checksummed = getAddress(address);
  accounts.set(deps, checksummed);
  return checksummed;
}

/**
 * Verifies a USDC payment: a successful transaction whose Transfer logs (on the configured USDC) from `payer`
 * to the subscription account sum to at least `minimum`. Returns the sum, which is what gets credited.
 */
export async function verifyPayment(deps: Deps, hash: Hex, payer: Address, minimum: bigint): Promise<bigint> {
  const used = await deps.pool.query("select 1 from api.subscription_payment where tx_hash = $1", [hash.toLowerCase()]);
  if (used.rowCount) throw txAlreadyUsed(hash);
  const receipt = await deps.chain.getTransactionReceipt({ hash }).catch(() => undefined);
  if (!receipt) throw new ApiError(400, "TX_NOT_FOUND", `no confirmed transaction ${hash}`);
  if (receipt.status !== "success") throw new ApiError(400, "TX_FAILED", `transaction ${hash} reverted`);
  const account = await subscriptionAccount(deps);
  const usdc = deps.deployments.usdc.address;
  const transfers = parseEventLogs({
    abi: TestUSDCAbi,
    eventName: "Transfer",
    logs: receipt.logs.filter((l) => isAddressEqual(l.address, usdc)),
  }).filter((l) => isAddressEqual(l.args.from, payer) && isAddressEqual(l.args.to, account));
  const paid = transfers.reduce((sum, l) => sum + l.args.value, 0n);
  if (paid < minimum) {
    throw new ApiError(
      400,
      "PAYMENT_MISMATCH",
      `transaction ${hash} transfers ${paid} USDC base units from ${payer} to the subscription account ${account}; ${minimum} are needed`,
    );
  }
  return paid;
}

export const txAlreadyUsed = (hash: string) =>
  new ApiError(400, "TX_ALREADY_USED", `transaction ${hash} already funded a subscription`);

import { bigint, bigserial, integer, numeric, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const subscription = api.table("subscription", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  posterAddress: text("poster_address").notNull(),
  instructions: text("instructions").notNull(),
  task: text("task").notNull(),
  cadence: text("cadence").notNull(),
  intervalLabel: text("interval_label").notNull(),
  everySeconds: integer("every_seconds").notNull(),
  /** null for open-ended subscriptions (migration 160). */
  totalRuns: integer("total_runs"),
  runsCreated: integer("runs_created").notNull().default(0),
  rewardPerRun: numeric("reward_per_run", { precision: 78, scale: 0 }).notNull(),
  feePerRun: numeric("fee_per_run", { precision: 78, scale: 0 }).notNull(),
  balanceRemaining: numeric("balance_remaining", { precision: 78, scale: 0 }).notNull(),
  totalFunded: numeric("total_funded", { precision: 78, scale: 0 }).notNull(),
  forfeited: numeric("forfeited", { precision: 78, scale: 0 }).notNull().default("0"),
  status: text("status").notNull(),
  startsAt: bigint("starts_at", { mode: "number" }).notNull(),
  nextRunAt: bigint("next_run_at", { mode: "number" }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  /** The SubscriptionVault's id once the balance is held on chain (migration 161). */
  vaultId: bigint("vault_id", { mode: "number" }).unique(),
  refunded: numeric("refunded", { precision: 78, scale: 0 }).notNull().default("0"),
});

export const subscriptionRun = api.table(
  "subscription_run",
  {
    subscriptionId: bigint("subscription_id", { mode: "number" }).notNull(),
    slot: integer("slot").notNull(),
    runId: bigint("run_id", { mode: "number" }).notNull(),
    scheduledFor: bigint("scheduled_for", { mode: "number" }).notNull(),
    amount: numeric("amount", { precision: 78, scale: 0 }).notNull(),
    status: text("status").notNull(),
    txHash: text("tx_hash"),
    attempts: integer("attempts").notNull().default(0),
    lastError: text("last_error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.subscriptionId, t.slot] })],
);

export const subscriptionLedger = api.table("subscription_ledger", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  subscriptionId: bigint("subscription_id", { mode: "number" }).notNull(),
  kind: text("kind").notNull(),
  amount: numeric("amount", { precision: 78, scale: 0 }).notNull(),
  balanceAfter: numeric("balance_after", { precision: 78, scale: 0 }).notNull(),
  txHash: text("tx_hash"),
  runId: bigint("run_id", { mode: "number" }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

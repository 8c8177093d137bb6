import { bigint, boolean, integer, numeric, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const paymasterBudget = api.table("paymaster_budget", {
  id: boolean("id").primaryKey().default(true),
  agentBudgetWei: numeric("agent_budget_wei", { precision: 78, scale: 0 }).notNull(),
  globalBudgetWei: numeric("global_budget_wei", { precision: 78, scale: 0 }).notNull(),
  periodSeconds: integer("period_seconds").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const paymasterSponsorship = api.table(
  "paymaster_sponsorship",
  {
    sender: text("sender").notNull(),
    nonce: numeric("nonce", { precision: 78, scale: 0 }).notNull(),
    agentId: bigint("agent_id", { mode: "number" }).notNull(),
    periodStart: bigint("period_start", { mode: "number" }).notNull(),
    maxCostWei: numeric("max_cost_wei", { precision: 78, scale: 0 }).notNull(),
    validUntil: bigint("valid_until", { mode: "number" }).notNull(),
    signedAt: timestamp("signed_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.sender, t.nonce] })],
);

import { bigint, numeric, text, timestamp } from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const insuranceStakeRecord = api.table("insurance_stake_record", {
  txHash: text("tx_hash").primaryKey(),
  agentId: bigint("agent_id", { mode: "number" }).notNull(),
  walletAddress: text("wallet_address").notNull(),
  amount: numeric("amount", { precision: 78, scale: 0 }).notNull(),
  mode: text("mode").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

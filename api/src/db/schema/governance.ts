import { numeric, text, timestamp } from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const governanceProposalRecord = api.table("governance_proposal_record", {
  proposalId: numeric("proposal_id", { precision: 78, scale: 0 }).primaryKey(),
  txHash: text("tx_hash").notNull(),
  proposer: text("proposer").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

import { bigint, bigserial, text, timestamp } from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const agentReport = api.table("agent_report", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  agentId: bigint("agent_id", { mode: "number" }).notNull(),
  reason: text("reason").notNull(),
  details: text("details").notNull(),
  reporterIp: text("reporter_ip").notNull(),
  status: text("status").notNull().default("PENDING"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  reporterAddress: text("reporter_address"),
  bountyId: bigint("bounty_id", { mode: "number" }),
  filedAt: bigint("filed_at", { mode: "number" }),
  resolvedAt: timestamp("resolved_at", { withTimezone: true }),
  resolvedBy: text("resolved_by"),
  resolutionNote: text("resolution_note"),
});

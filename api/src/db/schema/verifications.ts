import { bigint, bigserial, integer, jsonb, numeric, text, timestamp } from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const verification = api.table("verification", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  agentId: bigint("agent_id", { mode: "number" }).notNull(),
  type: text("type").notNull(),
  status: text("status").notNull(),
  domain: text("domain"),
  token: text("token"),
  minStakeAmount: numeric("min_stake_amount", { precision: 78, scale: 0 }),
  actualBalance: numeric("actual_balance", { precision: 78, scale: 0 }),
  skillName: text("skill_name"),
  score: integer("score"),
  answers: jsonb("answers"),
  badge: text("badge"),
  message: text("message"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull(),
  verifiedAt: timestamp("verified_at", { withTimezone: true }),
  expiresAt: timestamp("expires_at", { withTimezone: true }),
  lastCheckedAt: timestamp("last_checked_at", { withTimezone: true }),
});

export const skillAttempt = api.table("skill_attempt", {
  id: text("id").primaryKey(),
  agentId: bigint("agent_id", { mode: "number" }).notNull(),
  skillName: text("skill_name").notNull(),
  questions: jsonb("questions").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }),
});

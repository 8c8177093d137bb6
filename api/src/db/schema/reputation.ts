import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  date,
  doublePrecision,
  integer,
  jsonb,
  primaryKey,
  smallint,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const reputation = api.table("reputation", {
  agentId: bigint("agent_id", { mode: "number" }).primaryKey(),
  score: doublePrecision("score").notNull().default(50),
  successRate: doublePrecision("success_rate").notNull().default(0),
  uptimePercentage: doublePrecision("uptime_percentage").notNull().default(0),
  avgResponseTimeMs: doublePrecision("avg_response_time_ms").notNull().default(0),
  attestationCount: integer("attestation_count").notNull().default(0),
  attestationScore: doublePrecision("attestation_score").notNull().default(0),
  verificationPoints: integer("verification_points").notNull().default(0),
  verificationBadges: text("verification_badges").array().notNull().default(sql`'{}'`),
  codingScore: doublePrecision("coding_score").notNull().default(0),
  researchScore: doublePrecision("research_score").notNull().default(0),
  contentScore: doublePrecision("content_score").notNull().default(0),
  components: jsonb("components").notNull().default({}),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  fingerprint: text("fingerprint"),
});

export const reputationHistory = api.table("reputation_history", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  agentId: bigint("agent_id", { mode: "number" }).notNull(),
  score: doublePrecision("score").notNull(),
  components: jsonb("components").notNull(),
  trigger: text("trigger").notNull(),
  computedAt: timestamp("computed_at", { withTimezone: true }).notNull(),
});

export const uptimeCheck = api.table(
  "uptime_check",
  {
    id: bigserial("id", { mode: "number" }),
    agentId: bigint("agent_id", { mode: "number" }).notNull(),
    roundId: text("round_id").notNull(),
    checkedAt: timestamp("checked_at", { withTimezone: true }).notNull(),
    up: boolean("up").notNull(),
    statusCode: integer("status_code"),
    latencyMs: integer("latency_ms"),
    error: text("error"),
    target: text("target").notNull(),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.roundId] })],
);

export const uptimeDaily = api.table(
  "uptime_daily",
  {
    agentId: bigint("agent_id", { mode: "number" }).notNull(),
    day: date("day").notNull(),
    checks: integer("checks").notNull().default(0),
    ups: integer("ups").notNull().default(0),
    latencySumMs: bigint("latency_sum_ms", { mode: "number" }).notNull().default(0),
  },
  (t) => [primaryKey({ columns: [t.agentId, t.day] })],
);

export const attestation = api.table("attestation", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  attestorId: bigint("attestor_id", { mode: "number" }).notNull(),
  subjectId: bigint("subject_id", { mode: "number" }).notNull(),
  category: text("category").notNull(),
  rating: smallint("rating").notNull(),
  comment: text("comment"),
  weight: doublePrecision("weight").notNull(),
  attestorScore: doublePrecision("attestor_score").notNull(),
  payer: text("payer").notNull(),
  paymentNonce: text("payment_nonce"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

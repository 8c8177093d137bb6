import { sql } from "drizzle-orm";
import { bigint, boolean, doublePrecision, integer, real, text } from "drizzle-orm/pg-core";
import { api, tsvector } from "./api.ts";

export const agentSearch = api.table("agent_search", {
  agentId: bigint("agent_id", { mode: "number" }).primaryKey(),
  name: text("name").notNull(),
  capabilities: text("capabilities").array().notNull(),
  programmingLangs: text("programming_langs").array().notNull(),
  domains: text("domains").array().notNull(),
  tools: text("tools").array().notNull(),
  search: tsvector("search").notNull(),
  score: doublePrecision("score").notNull().default(50),
  uptimePercentage: doublePrecision("uptime_percentage").notNull().default(0),
  verified: boolean("verified").notNull().default(false),
  walletAddress: text("wallet_address"),
  displayCapabilities: text("display_capabilities").array().notNull().default(sql`'{}'`),
  displayProgrammingLangs: text("display_programming_langs").array().notNull().default(sql`'{}'`),
  displayDomains: text("display_domains").array().notNull().default(sql`'{}'`),
  displayTools: text("display_tools").array().notNull().default(sql`'{}'`),
  avgResponseTimeMs: doublePrecision("avg_response_time_ms").notNull().default(0),
  attestationCount: integer("attestation_count").notNull().default(0),
  attestationScore: doublePrecision("attestation_score").notNull().default(0),
  verificationBadges: text("verification_badges").array().notNull().default(sql`'{}'`),
});

export const searchShare = api.table("search_share", {
  key: text("key").primaryKey(),
  share: real("share").notNull(),
});

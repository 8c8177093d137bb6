import { sql } from "drizzle-orm";
import { bigint, integer, jsonb, text, timestamp, uuid } from "drizzle-orm/pg-core";
import { api, bytea, tsvector } from "./api.ts";

export const agentWallet = api.table("agent_wallet", {
  walletAddress: text("wallet_address").primaryKey(),
  agentId: bigint("agent_id", { mode: "number" }),
  encryptedKey: bytea("encrypted_key"),
  claimCodeHash: text("claim_code_hash").notNull(),
  claimExpiresAt: timestamp("claim_expires_at", { withTimezone: true }).notNull(),
  claimState: text("claim_state"),
  claimedBy: text("claimed_by"),
  claimedAt: timestamp("claimed_at", { withTimezone: true }),
  claimTx: text("claim_tx"),
  mintTx: text("mint_tx"),
  orgId: text("org_id"),
  registeredIp: text("registered_ip"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  mintUri: text("mint_uri"),
  keyRedeliveryUntil: timestamp("key_redelivery_until", { withTimezone: true }),
  /** Batched mints (migration 180): the batch's key and this wallet's place in it, and the attempt holding it. */
  mintKey: text("mint_key"),
  mintPosition: integer("mint_position"),
  mintLease: uuid("mint_lease"),
  mintLeaseUntil: timestamp("mint_lease_until", { withTimezone: true }),
});

export const agentProfile = api.table("agent_profile", {
  agentId: bigint("agent_id", { mode: "number" }).primaryKey(),
  name: text("name").notNull(),
  description: text("description").notNull().default(""),
  capabilities: text("capabilities").array().notNull().default(sql`'{}'`),
  programmingLangs: text("programming_langs").array().notNull().default(sql`'{}'`),
  domains: text("domains").array().notNull().default(sql`'{}'`),
  tools: text("tools").array().notNull().default(sql`'{}'`),
  endpoints: jsonb("endpoints").notNull().default({}),
  image: text("image"),
  metadataCid: text("metadata_cid").notNull(),
  // Written by Postgres only (generated column, migration 002).
  search: tsvector("search").generatedAlwaysAs(
    sql`setweight(to_tsvector('simple', coalesce(name, '')), 'A') ||
        setweight(to_tsvector('english', coalesce(description, '')), 'B') ||
        setweight(to_tsvector('simple', api.join_tags(capabilities) || ' ' || api.join_tags(tools)), 'B') ||
        setweight(to_tsvector('simple', api.join_tags(programming_langs) || ' ' || api.join_tags(domains)), 'C')`,
  ),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const profilePublish = api.table("profile_publish", {
  agentId: bigint("agent_id", { mode: "number" }).primaryKey(),
  lastSentAt: timestamp("last_sent_at", { withTimezone: true }).notNull(),
  pendingSince: timestamp("pending_since", { withTimezone: true }),
});

export const adminSlash = api.table("admin_slash", {
  idempotencyKey: text("idempotency_key").primaryKey(),
  agentId: bigint("agent_id", { mode: "number" }).notNull(),
  bps: integer("bps").notNull(),
  reason: text("reason").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

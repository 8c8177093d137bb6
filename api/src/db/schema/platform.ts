import { integer, jsonb, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { api, bytea } from "./api.ts";

export const rateLimit = api.table(
  "rate_limit",
  {
    key: text("key").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

export const ipfsObject = api.table("ipfs_object", {
  cid: text("cid").primaryKey(),
  content: bytea("content").notNull(),
  contentType: text("content_type").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const authNonce = api.table("auth_nonce", {
  nonce: text("nonce").primaryKey(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  usedAt: timestamp("used_at", { withTimezone: true }),
  usedBy: text("used_by"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const accessToken = api.table("access_token", {
  tokenHash: text("token_hash").primaryKey(),
  address: text("address").notNull(),
  scope: text("scope").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  revokedAt: timestamp("revoked_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const idempotencyKey = api.table(
  "idempotency_key",
  {
    scope: text("scope").notNull(),
    operation: text("operation").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    resource: text("resource"),
    sealedSecret: bytea("sealed_secret"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.scope, t.operation, t.key] })],
);

export const jobCursor = api.table("job_cursor", {
  name: text("name").primaryKey(),
  value: jsonb("value").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Rate-limit grants handed to API processes per window (migration 181; unlogged). */
export const rateLimitLease = api.table(
  "rate_limit_lease",
  {
    key: text("key").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true }).notNull(),
    granted: integer("granted").notNull(),
    lastGrant: integer("last_grant").notNull(),
    max: integer("max").notNull(),
  },
  (t) => [primaryKey({ columns: [t.key, t.windowStart] })],
);

/** Transactions that count once per purpose (migration 198): stakes, proposals, payments, run funding. */
export const usedTx = api.table(
  "used_tx",
  {
    txHash: text("tx_hash").notNull(),
    purpose: text("purpose").notNull(),
    subject: text("subject").notNull(),
    detail: jsonb("detail").notNull().default({}),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.txHash, t.purpose] })],
);

import { sql } from "drizzle-orm";
import {
  bigint,
  bigserial,
  boolean,
  date,
  integer,
  jsonb,
  numeric,
  primaryKey,
  text,
  timestamp,
} from "drizzle-orm/pg-core";
import type { Isolation, PlanName, Role } from "../../domain/plans.ts";
import { api, bytea } from "./api.ts";

export const organization = api.table("organization", {
  id: text("id").primaryKey(),
  name: text("name").notNull(),
  subdomain: text("subdomain").notNull(),
  adminEmail: text("admin_email"),
  plan: text("plan").$type<PlanName>().notNull().default("starter"),
  isolation: text("isolation").$type<Isolation>().notNull().default("none"),
  branding: jsonb("branding").$type<Record<string, string>>().notNull().default({}),
  domain: text("domain"),
  domainStatus: text("domain_status").$type<"pending" | "active">(),
  domainToken: text("domain_token"),
  domainVerifiedAt: timestamp("domain_verified_at", { withTimezone: true }),
  shareOutbound: boolean("share_outbound").notNull().default(false),
  acceptInbound: boolean("accept_inbound").notNull().default(false),
  whitelistOrgs: text("whitelist_orgs").array().notNull().default(sql`'{}'`),
  /** The organization's own quotas (migration 143); null means its plan's value. */
  paymentsPerDay: integer("payments_per_day"),
  apiCallsPerMonth: integer("api_calls_per_month"),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
});

export const orgCredential = api.table("org_credential", {
  keyHash: text("key_hash").primaryKey(),
  orgId: text("org_id").notNull(),
  kind: text("kind").notNull(),
  prefix: text("prefix").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  expiresAt: timestamp("expires_at", { withTimezone: true }),
  /** The member a member key belongs to (migration 142). */
  memberId: text("member_id"),
});

export const orgMember = api.table("org_member", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  email: text("email").notNull(),
  role: text("role").$type<Role>().notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

/** Quota use per organization, kind and UTC period (migration 143), shared by every API process. */
export const orgQuota = api.table(
  "org_quota",
  {
    orgId: text("org_id").notNull(),
    kind: text("kind").notNull(),
    periodStart: timestamp("period_start", { withTimezone: true }).notNull(),
    used: bigint("used", { mode: "number" }).notNull().default(0),
  },
  (table) => [primaryKey({ columns: [table.orgId, table.kind, table.periodStart] })],
);

export const orgUsage = api.table(
  "org_usage",
  {
    orgId: text("org_id").notNull(),
    day: date("day").notNull(),
    requests: bigint("requests", { mode: "number" }).notNull().default(0),
    x402Payments: bigint("x402_payments", { mode: "number" }).notNull().default(0),
    x402Volume: numeric("x402_volume").notNull().default("0"),
  },
  (t) => [primaryKey({ columns: [t.orgId, t.day] })],
);

export const orgWebhook = api.table("org_webhook", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  url: text("url").notNull(),
  events: text("events").array().notNull(),
  secretEnc: bytea("secret_enc").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const orgEvent = api.table("org_event", {
  id: text("id").primaryKey(),
  orgId: text("org_id").notNull(),
  event: text("event").notNull(),
  agentId: bigint("agent_id", { mode: "number" }),
  body: text("body").notNull(),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  /** Names the event once per organization (migration 150): a second emission under it writes nothing. */
  dedupeKey: text("dedupe_key"),
});

export const webhookDelivery = api.table("webhook_delivery", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  eventId: text("event_id").notNull(),
  webhookId: text("webhook_id").notNull(),
  status: text("status").notNull().default("pending"),
  attempts: integer("attempts").notNull().default(0),
  nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull().defaultNow(),
  leaseUntil: timestamp("lease_until", { withTimezone: true }),
  lastStatusCode: integer("last_status_code"),
  lastError: text("last_error"),
  lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
  deliveredAt: timestamp("delivered_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

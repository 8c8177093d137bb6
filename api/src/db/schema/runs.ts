import { bigint, bigserial, integer, jsonb, numeric, primaryKey, text, timestamp } from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const run = api.table("run", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  posterAddress: text("poster_address").notNull(),
  title: text("title").notNull(),
  description: text("description").notNull(),
  reward: numeric("reward", { precision: 78, scale: 0 }).notNull(),
  deadline: bigint("deadline", { mode: "number" }).notNull(),
  maxRevisions: integer("max_revisions").notNull(),
  requestCid: text("request_cid").notNull(),
  /** The cover (agreed damages) the poster's draft declares; the InsurancePool's is set after funding (migration 190). */
  declaredCoverage: numeric("declared_coverage", { precision: 78, scale: 0 }),
  onchainRunId: numeric("onchain_run_id", { precision: 78, scale: 0 }),
  fundingTx: text("funding_tx"),
  fundedAt: timestamp("funded_at", { withTimezone: true }),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const runAction = api.table("run_action", {
  id: bigserial("id", { mode: "number" }).primaryKey(),
  runId: bigint("run_id", { mode: "number" }).notNull(),
  action: text("action").notNull(),
  signer: text("signer"),
  agentId: bigint("agent_id", { mode: "number" }),
  txHash: text("tx_hash"),
  detail: jsonb("detail").notNull().default({}),
  createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
});

export const runLock = api.table("run_lock", {
  runId: bigint("run_id", { mode: "number" }).primaryKey(),
  holder: text("holder").notNull(),
  expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
});

/** The organizations a run belongs to (its poster's), fixed when the run goes on chain (migration 150). */
export const runOrg = api.table(
  "run_org",
  {
    runId: bigint("run_id", { mode: "number" }).notNull(),
    orgId: text("org_id").notNull(),
    agentId: bigint("agent_id", { mode: "number" }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.runId, t.orgId] })],
);

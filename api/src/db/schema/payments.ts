import { boolean, jsonb, numeric, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";
import { api } from "./api.ts";

export const payment = api.table(
  "payment",
  {
    scheme: text("scheme").notNull(),
    payer: text("payer").notNull(),
    nonce: text("nonce").notNull(),
    recipient: text("recipient").notNull(),
    amount: numeric("amount", { precision: 78, scale: 0 }).notNull(),
    asset: text("asset"),
    endpoint: text("endpoint").notNull(),
    status: text("status").notNull(),
    delivered: boolean("delivered").notNull().default(false),
    leaseUntil: timestamp("lease_until", { withTimezone: true }),
    txHash: text("tx_hash"),
    x402Version: smallint("x402_version"),
    payload: jsonb("payload"),
    error: text("error"),
    createdAt: timestamp("created_at", { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp("updated_at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.scheme, t.payer, t.nonce] })],
);

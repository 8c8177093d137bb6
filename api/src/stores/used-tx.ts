// Transactions that count once (api.used_tx, migration 198): a stake, an insurance stake, a recorded governance
// proposal, a subscription payment or a run's funding, each recorded once per purpose. The record is written in the
// same transaction as what the hash pays for, so a replay is refused and a failure leaves nothing behind.
import { createDb, type Queryable } from "../db/index.ts";
import { usedTx } from "../db/schema/index.ts";

export type TxPurpose = "stake" | "insurance-stake" | "governance-proposal" | "subscription-payment" | "run-funding";

export interface TxUse {
  txHash: string;
  purpose: TxPurpose;
  /** What it counted for: agent id, proposal id, subscription id or run id. */
  subject: string | number | bigint;
  detail?: Record<string, unknown>;
}

/**
 * Records `use` on `db` (the pool, or the connection of the caller's transaction); false when the hash already
 * counted for this purpose (or the proposal was already recorded).
 */
export async function recordTxUse(db: Queryable, use: TxUse): Promise<boolean> {
  const inserted = await createDb(db)
    .insert(usedTx)
    .values({
      txHash: use.txHash.toLowerCase(),
      purpose: use.purpose,
      subject: use.subject.toString(),
      detail: use.detail ?? {},
    })
    .onConflictDoNothing()
    .returning({ txHash: usedTx.txHash });
  return inserted.length === 1;
}

import type { Context } from "ponder:registry";
import { paymentCredit } from "ponder:schema";

/** Adds a deferred payment (`delta` > 0) or a withdrawn credit (`delta` < 0) to `account`'s credit in `contract`. */
export async function recordCredit(
  context: Context,
  contract: "RunEscrow" | "StakeVault",
  account: `0x${string}`,
  delta: bigint,
  timestamp: bigint,
) {
  const id = `${contract}:${account.toLowerCase()}`;
  const deferred = delta > 0n ? delta : 0n;
  const withdrawn = delta < 0n ? -delta : 0n;
  await context.db
    .insert(paymentCredit)
    .values({
      id,
      contract,
      account,
      amount: delta,
      totalDeferred: deferred,
      totalWithdrawn: withdrawn,
      updatedAt: timestamp,
    })
    .onConflictDoUpdate((row) => ({
      amount: row.amount + delta,
      totalDeferred: row.totalDeferred + deferred,
      totalWithdrawn: row.totalWithdrawn + withdrawn,
      updatedAt: timestamp,
    }));
}

// Runs past an escrow window as the indexer shows them, for the run-exits job: submissions the poster left alone past
// the review window and disputes unresolved past the dispute window. The escrow holds the truth (it refuses an exit
// that is early or no longer open); a row the chain has already moved on from only costs the job a skipped entry.
import { and, asc, eq, lte, max } from "drizzle-orm";
import type { Deps } from "../context.ts";
import { createDb } from "../db/index.ts";

/** Submitted runs whose (last) submission is at or before `submittedBy`, the longest-waiting first. */
export async function submissionsPastReview(
  deps: Pick<Deps, "pool" | "views">,
  submittedBy: bigint,
  limit: number,
): Promise<bigint[]> {
  const r = deps.views.run;
  const rows = await createDb(deps.pool)
    .select({ id: r.id })
    .from(r)
    .where(and(eq(r.state, "Submitted"), lte(r.submittedAt, `${submittedBy}`)))
    .orderBy(asc(r.submittedAt))
    .limit(limit);
  return rows.map((row) => BigInt(row.id));
}

/** Disputed runs whose dispute was opened at or before `disputedBy` (its DISPUTED event), the oldest first. */
export async function disputesPastWindow(
  deps: Pick<Deps, "pool" | "views">,
  disputedBy: bigint,
  limit: number,
): Promise<bigint[]> {
  const { run: r, runEvent: e } = deps.views;
  const disputedAt = max(e.timestamp);
  const rows = await createDb(deps.pool)
    .select({ id: r.id })
    .from(r)
    .innerJoin(e, and(eq(e.runId, r.id), eq(e.kind, "DISPUTED")))
    .where(eq(r.state, "Disputed"))
    .groupBy(r.id)
    .having(lte(disputedAt, `${disputedBy}`))
    .orderBy(asc(disputedAt))
    .limit(limit);
  return rows.map((row) => BigInt(row.id));
}

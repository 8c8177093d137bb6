// Subscriptions (api.subscription and its payments, run slots and ledger): the API's mirror of the SubscriptionVault
// (the chain is the truth about money) and the scheduler's run slots. Each transaction hash that funds a
// subscription is recorded once (api.used_tx): a replay is "tx-used".
import { and, asc, count, desc, eq, getTableColumns, notInArray, type SQL, sql } from "drizzle-orm";
import type { Deps } from "../context.ts";
import { isUniqueViolation } from "../db/errors.ts";
import { createDb, type Queryable } from "../db/index.ts";
import { subscriptionLedger as ledger, run as runTable, subscription, subscriptionRun } from "../db/schema/index.ts";
import { withTransaction } from "../db/transaction.ts";
import { orgAddressesSql } from "./org-scope.ts";
import { recordBountyCreated } from "./run-orgs.ts";
import { recordAction } from "./runs.ts";
import { recordTxUse } from "./used-tx.ts";

export const SUBSCRIPTION_STATUSES = ["ACTIVE", "PAUSED", "EXHAUSTED", "COMPLETED", "CANCELLED"] as const;
export type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export type SubscriptionRow = Omit<typeof subscription.$inferSelect, "status"> & { status: SubscriptionStatus };
type Reader = Pick<Deps, "db">;

export async function findSubscription(deps: Reader, id: number): Promise<SubscriptionRow | undefined> {
  const [row] = await deps.db.select().from(subscription).where(eq(subscription.id, id));
  return row as SubscriptionRow | undefined;
}

export interface SubscriptionFilter {
  posterAddress?: string;
  status?: SubscriptionStatus;
  page: number;
  limit: number;
  /** Only the organization's (`agentView`: deps.views.names.agent). */
  org?: { id: string; agentView: string };
}

/** A page of subscriptions, newest first, and how many match (one snapshot: the count is a window). */
export async function listSubscriptions(deps: Reader, f: SubscriptionFilter) {
  const where: SQL[] = [];
  if (f.posterAddress) where.push(sql`lower(${subscription.posterAddress}) = ${f.posterAddress.toLowerCase()}`);
  if (f.status) where.push(eq(subscription.status, f.status));
  // With an organization key: the subscriptions its agents' addresses (generated wallets, owners) post.
  if (f.org) where.push(sql`lower(${subscription.posterAddress}) in ${orgAddressesSql(f.org.agentView, f.org.id)}`);
  const filter = and(...where);
  const offset = (f.page - 1) * f.limit;
  const rows = await deps.db
    .select({ ...getTableColumns(subscription), total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(subscription)
    .where(filter)
    .orderBy(desc(subscription.id))
    .limit(f.limit)
    .offset(offset);
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && offset > 0)
    total = (await deps.db.select({ n: count() }).from(subscription).where(filter))[0]!.n;
  return { rows: rows.map(({ total: _, ...row }) => row as SubscriptionRow), total };
}

/**
 * A page of the runs subscription `id` created, oldest first, and their count, from one snapshot (the count is a
 * window over the same rows, so a slot reserved meanwhile is in both or in neither).
 */
export async function subscriptionRuns(deps: Reader, id: number, page: { limit: number; offset: number }) {
  const rows = await deps.db
    .select({ ...getTableColumns(subscriptionRun), total: sql<number>`count(*) over ()`.mapWith(Number) })
    .from(subscriptionRun)
    .where(eq(subscriptionRun.subscriptionId, id))
    .orderBy(asc(subscriptionRun.slot))
    .limit(page.limit)
    .offset(page.offset);
  if (rows.length > 0 || page.offset === 0) return { rows, total: rows[0]?.total ?? 0 };
  const [total] = await deps.db
    .select({ n: count() })
    .from(subscriptionRun)
    .where(eq(subscriptionRun.subscriptionId, id));
  return { rows, total: total!.n };
}

/** The payment's transaction already counted: the transaction that records it rolls back. */
class TxUsed extends Error {}

/** Each USDC transfer that funds a subscription (creation or top-up) counts once. */
function recordPayment(
  db: Queryable,
  p: { txHash: string; id: number; kind: "create" | "topup"; payer: string; amount: bigint },
): Promise<boolean> {
  return recordTxUse(db, {
    txHash: p.txHash,
    purpose: "subscription-payment",
    subject: p.id,
    detail: { kind: p.kind, payer: p.payer, amount: p.amount.toString() },
  });
}

export interface OpenedSubscription {
  posterAddress: string;
  instructions: string;
  task: string;
  cadence: string;
  intervalLabel: string;
  everySeconds: number;
  totalRuns: number | null;
  rewardPerRun: bigint;
  feePerRun: bigint;
  amount: bigint;
  startsAt: number;
  vaultId: bigint;
  txHash: string;
}

/** Records a subscription the vault opened (row, payment, ledger); "tx-used" when its transaction is recorded. */
export async function insertOpenedSubscription(deps: Pick<Deps, "pool">, s: OpenedSubscription) {
  return withTransaction(deps.pool, async (client) => {
    const db = createDb(client);
    const [row] = await db
      .insert(subscription)
      .values({
        posterAddress: s.posterAddress,
        instructions: s.instructions,
        task: s.task,
        cadence: s.cadence,
        intervalLabel: s.intervalLabel,
        everySeconds: s.everySeconds,
        totalRuns: s.totalRuns,
        rewardPerRun: s.rewardPerRun.toString(),
        feePerRun: s.feePerRun.toString(),
        balanceRemaining: s.amount.toString(),
        totalFunded: s.amount.toString(),
        status: "ACTIVE",
        startsAt: s.startsAt,
        nextRunAt: s.startsAt,
        vaultId: Number(s.vaultId),
      })
      .returning({ id: subscription.id });
    const id = row!.id;
    if (
      !(await recordPayment(client, { txHash: s.txHash, id, kind: "create", payer: s.posterAddress, amount: s.amount }))
    ) {
      throw new TxUsed();
    }
    await db.insert(ledger).values({
      subscriptionId: id,
      kind: "fund",
      amount: s.amount.toString(),
      balanceAfter: s.amount.toString(),
      txHash: s.txHash,
    });
    return id;
  }).catch((error) => {
    // A retried request gets the relayer's first transaction back: its subscription (vault id) is recorded too.
    if (error instanceof TxUsed || isUniqueViolation(error)) return "tx-used" as const;
    throw error;
  });
}

/** Records a top-up (payment, total funded, ledger); "tx-used" when its transaction is recorded already. */
export async function recordTopup(
  deps: Pick<Deps, "pool">,
  t: { id: number; txHash: string; payer: string; amount: bigint; balanceAfter: bigint },
): Promise<"recorded" | "tx-used"> {
  try {
    await withTransaction(deps.pool, async (client) => {
      const db = createDb(client);
      if (!(await recordPayment(client, { ...t, kind: "topup" }))) throw new TxUsed();
      await db
        .update(subscription)
        .set({ totalFunded: sql`${subscription.totalFunded} + ${t.amount.toString()}` })
        .where(eq(subscription.id, t.id));
      await db.insert(ledger).values({
        subscriptionId: t.id,
        kind: "topup",
        amount: t.amount.toString(),
        balanceAfter: t.balanceAfter.toString(),
        txHash: t.txHash,
      });
    });
    return "recorded";
  } catch (error) {
    if (error instanceof TxUsed || isUniqueViolation(error)) return "tx-used";
    throw error;
  }
}

/** Adds a refund the vault paid the subscriber (on cancel or completion) to the row and the ledger. */
async function addRefund(db: Queryable, id: number, refund: bigint, txHash: string) {
  const d = createDb(db);
  await d
    .update(subscription)
    .set({ refunded: sql`${subscription.refunded} + ${refund.toString()}` })
    .where(eq(subscription.id, id));
  await d
    .insert(ledger)
    .values({ subscriptionId: id, kind: "refund", amount: refund.toString(), balanceAfter: "0", txHash });
}

export async function recordRefund(deps: Pick<Deps, "pool">, id: number, refund: bigint, txHash: string) {
  await withTransaction(deps.pool, (client) => addRefund(client, id, refund, txHash.toLowerCase()));
}

export interface VaultMirror {
  status: SubscriptionStatus;
  balance: bigint;
  nextRunAt: bigint | null;
  runsCreated: number;
}

/**
 * Takes the vault's state into the row. While a reserved slot is being sent, its schedule fields (advanced by the
 * reservation) are kept so the scheduler does not reserve the same slot twice; a snapshot read before a run the
 * scheduler has since created (fewer runs than CREATED slots: a read that raced the scheduler) is not taken at all.
 * A cancelled or completed subscription's snapshot is always taken (a cancel that raced a reserved slot showed the
 * reservation's balance instead of 0).
 */
export async function syncMirror(deps: Reader, id: number, s: VaultMirror): Promise<SubscriptionRow | undefined> {
  const pending = sql`exists (select 1 from api.subscription_run where subscription_id = ${id} and status = 'PENDING')`;
  // An ended subscription (cancelled, completed) changes no more on chain: its snapshot is final, and a slot still
  // pending can only be refused (then released), so the vault's state is taken whatever the slots say.
  const ended = s.status === "CANCELLED" || s.status === "COMPLETED";
  const stale = ended
    ? sql`false`
    : sql`${s.runsCreated}::int < (select count(*) from api.subscription_run
    where subscription_id = ${id} and status = 'CREATED')`;
  const keep = ended ? sql`false` : sql`(${pending} or ${stale})`;
  const [row] = await deps.db
    .update(subscription)
    .set({
      status: sql`case when ${stale} then status else ${s.status} end`,
      balanceRemaining: sql`case when ${keep} then balance_remaining else ${s.balance.toString()}::numeric end`,
      nextRunAt: sql`case when ${keep} then next_run_at else ${s.nextRunAt?.toString() ?? null}::bigint end`,
      runsCreated: sql`case when ${keep} then runs_created else ${s.runsCreated}::int end`,
      updatedAt: sql`now()`,
    })
    .where(eq(subscription.id, id))
    .returning();
  return row as SubscriptionRow | undefined;
}

// The scheduler's slots: a due run of an ACTIVE subscription is reserved (PENDING, its draft run written) in one
// transaction, then sent through the vault and marked CREATED.

export interface Slot {
  subscriptionId: number;
  slot: number;
  runId: number;
}

/** Reserved slots not sent yet, oldest first. */
export async function pendingSlots(deps: Reader, limit: number): Promise<Slot[]> {
  const rows = await deps.db
    .select({
      subscriptionId: subscriptionRun.subscriptionId,
      slot: subscriptionRun.slot,
      runId: subscriptionRun.runId,
    })
    .from(subscriptionRun)
    .where(eq(subscriptionRun.status, "PENDING"))
    .orderBy(asc(subscriptionRun.createdAt))
    .limit(limit);
  return rows;
}

/**
 * The ACTIVE subscription due first, locked for this transaction (others skip it), leaving out `skip` (rows whose
 * reservation failed earlier in this tick: one bad row must not starve the rest).
 */
export async function lockNextDue(
  db: Queryable,
  now: bigint,
  skip: readonly number[] = [],
): Promise<SubscriptionRow | undefined> {
  const due = [eq(subscription.status, "ACTIVE"), sql`${subscription.nextRunAt} <= ${now.toString()}`];
  if (skip.length > 0) due.push(notInArray(subscription.id, [...skip]));
  const [row] = await createDb(db)
    .select()
    .from(subscription)
    .where(and(...due))
    .orderBy(asc(subscription.nextRunAt), asc(subscription.id))
    .limit(1)
    .for("update", { skipLocked: true });
  return row as SubscriptionRow | undefined;
}

/**
 * The subscription's next free slot number. Slots are the API's own sequence, not the vault's run count: the two
 * part when a slot is released after a later one was created (a transient failure, then the vault's "not due"), or
 * when the subscriber triggers a run on the vault directly; numbering from the slots keeps each one unique.
 */
export async function nextSlot(db: Queryable, subscriptionId: number): Promise<number> {
  const [row] = await createDb(db)
    .select({ next: sql<number>`coalesce(max(${subscriptionRun.slot}) + 1, 0)`.mapWith(Number) })
    .from(subscriptionRun)
    .where(eq(subscriptionRun.subscriptionId, subscriptionId));
  return row!.next;
}

export async function markExhausted(db: Queryable, id: number): Promise<void> {
  await createDb(db)
    .update(subscription)
    .set({ status: "EXHAUSTED", updatedAt: sql`now()` })
    .where(eq(subscription.id, id));
}

export interface Reservation extends Slot {
  scheduledFor: bigint;
  amount: bigint;
  runsCreated: number;
  balanceAfter: bigint;
  status: SubscriptionStatus;
  nextRunAt: bigint | null;
}

/** Records slot `r` as PENDING and advances the row's schedule, in the caller's transaction. */
export async function reserveSlot(db: Queryable, r: Reservation): Promise<void> {
  const d = createDb(db);
  await d.insert(subscriptionRun).values({
    subscriptionId: r.subscriptionId,
    slot: r.slot,
    runId: r.runId,
    scheduledFor: Number(r.scheduledFor),
    amount: r.amount.toString(),
    status: "PENDING",
  });
  await d
    .update(subscription)
    .set({
      runsCreated: r.runsCreated,
      balanceRemaining: r.balanceAfter.toString(),
      status: r.status,
      nextRunAt: r.nextRunAt === null ? null : Number(r.nextRunAt),
      updatedAt: sql`now()`,
    })
    .where(eq(subscription.id, r.subscriptionId));
}

/** The slot's draft run as the vault must create it. */
export async function slotRun(deps: Reader, runId: number) {
  const [row] = await deps.db
    .select({
      poster: runTable.posterAddress,
      title: runTable.title,
      reward: runTable.reward,
      deadline: runTable.deadline,
      requestCid: runTable.requestCid,
      onchainRunId: runTable.onchainRunId,
    })
    .from(runTable)
    .where(eq(runTable.id, runId));
  return row;
}

export interface SlotCreated {
  slot: Slot;
  onchainRunId: bigint;
  txHash: string;
  /** What the vault paid into the escrow for the run. */
  amount: bigint;
  /** What the vault refunded the subscriber (its last run). */
  refund: bigint;
  run: { poster: string; title: string; reward: string; deadline: number };
  agentView: string;
}

/**
 * Links the slot's run to its escrow run and records the payment, in one transaction: the run (bounty.created
 * once it is linked), the slot CREATED, the ledger (and a refund on completion), and who funded it.
 */
export async function recordSlotCreated(deps: Pick<Deps, "pool">, c: SlotCreated): Promise<void> {
  const hash = c.txHash.toLowerCase();
  const { subscriptionId, slot, runId } = c.slot;
  await withTransaction(deps.pool, async (client) => {
    const db = createDb(client);
    const linked = await db
      .update(runTable)
      .set({ onchainRunId: c.onchainRunId.toString(), fundingTx: hash, fundedAt: sql`now()` })
      .where(and(eq(runTable.id, runId), sql`${runTable.onchainRunId} is null`))
      .returning({ id: runTable.id });
    // The run is OPEN: bounty.created for the subscriber's organizations, as for a run funded through the API.
    if (linked.length === 1) {
      await recordTxUse(client, { txHash: hash, purpose: "run-funding", subject: runId });
      await recordBountyCreated(client, c.agentView, { id: runId, ...c.run }, c.txHash);
    }
    await db
      .update(subscriptionRun)
      .set({ status: "CREATED", txHash: hash, attempts: sql`${subscriptionRun.attempts} + 1`, lastError: null })
      .where(and(eq(subscriptionRun.subscriptionId, subscriptionId), eq(subscriptionRun.slot, slot)));
    await client.query(
      `insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, tx_hash, run_id)
       select $1, 'run', $2, balance_remaining, $3, $4 from api.subscription where id = $1`,
      [subscriptionId, c.amount.toString(), hash, runId],
    );
    if (c.refund > 0n) await addRefund(client, subscriptionId, c.refund, hash);
    await recordAction(
      { db },
      { runId, action: "fund-run", signer: null, txHash: hash, detail: { subscriptionId, slot } },
    );
  });
}

/** The slot's run exists on chain already (an earlier attempt linked it). */
export async function markSlotCreated(deps: Reader, s: Slot): Promise<void> {
  await deps.db
    .update(subscriptionRun)
    .set({ status: "CREATED" })
    .where(and(eq(subscriptionRun.subscriptionId, s.subscriptionId), eq(subscriptionRun.slot, s.slot)));
}

export async function recordSlotFailure(deps: Reader, s: Slot, error: string): Promise<void> {
  await deps.db
    .update(subscriptionRun)
    .set({ attempts: sql`${subscriptionRun.attempts} + 1`, lastError: error.slice(0, 500) })
    .where(and(eq(subscriptionRun.subscriptionId, s.subscriptionId), eq(subscriptionRun.slot, s.slot)));
}

/** Drops a reserved slot the vault refused and its draft run (which never existed on chain). */
export async function releaseSlot(deps: Pick<Deps, "pool">, s: Slot): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    const db = createDb(client);
    await db
      .delete(subscriptionRun)
      .where(
        and(
          eq(subscriptionRun.subscriptionId, s.subscriptionId),
          eq(subscriptionRun.slot, s.slot),
          eq(subscriptionRun.status, "PENDING"),
        ),
      );
    await db.delete(runTable).where(and(eq(runTable.id, s.runId), sql`${runTable.onchainRunId} is null`));
  });
}

// The subscription scheduler (pg-boss job "subscription-runs"): reserves each due run slot in one database
// transaction (the row's mirror advanced: balance, schedule, status), then has the relayer call
// SubscriptionVault.trigger, which creates the run in the escrow (poster = the subscriber) from that subscription's
// escrowed balance only if it is due on chain; the row is then refreshed from the vault. Idempotent and safe with
// several processes: due rows are taken with FOR UPDATE SKIP LOCKED, each slot is a primary key, and each relayed
// transaction carries the idempotency key subscription-run:<id>:<slot>:<run>, so a retried slot gets the same
// transaction, never a second one. A slot the vault refuses (not due, paused, cancelled or spent on chain, e.g. by
// the subscriber acting directly) is released and the row resynchronized.

import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import { RelayerCallError } from "@agenthub/relayer/client";
import type pg from "pg";
import { getAddress, isAddressEqual, parseEventLogs } from "viem";
import type { Deps } from "../context.ts";
import { createDb } from "../db/index.ts";
import { withTransaction } from "../db/transaction.ts";
import { DAY } from "../domain/cadence.ts";
import { insertDraft, nextRunId } from "../stores/runs.ts";
import {
  findSubscription,
  lockNextDue,
  markExhausted,
  markSlotCreated,
  nextSlot,
  pendingSlots,
  recordSlotCreated,
  recordSlotFailure,
  releaseSlot,
  reserveSlot,
  type Slot,
  type SubscriptionRow,
  slotRun,
} from "../stores/subscriptions.ts";
import { chainNow, waitForRunTx } from "../use-cases/runs/escrow.ts";
import { SUBSCRIPTION_RUN_MAX_REVISIONS, syncFromChain, vault, vaultEvent } from "../use-cases/subscriptions/vault.ts";

/** Most slots reserved per tick (a backlog drains over several ticks). */
const MAX_SLOTS_PER_TICK = 50;

/** A run's deadline: one interval after it is created, at least one day. */
export const runDeadline = (createdAt: bigint, everySeconds: number) => createdAt + BigInt(Math.max(everySeconds, DAY));

/** One tick: send reserved-but-unsent slots, then reserve and send every due slot. */
export async function runDueSubscriptions(deps: Deps): Promise<{ reserved: number; created: number; failed: number }> {
  const now = await chainNow(deps);
  const work: Slot[] = await pendingSlots(deps, MAX_SLOTS_PER_TICK);
  let reserved = 0;
  const skip: number[] = [];
  while (reserved < MAX_SLOTS_PER_TICK) {
    let slot: Awaited<ReturnType<typeof reserveNext>>;
    try {
      slot = await reserveNext(deps, now, skip);
    } catch (err) {
      if (err instanceof ReservationFailed) {
        // One row that cannot be reserved (its transaction rolled back) waits for the next tick; the others go on.
        deps.logger.warn({ err: err.cause, subscriptionId: err.subscriptionId }, "subscription slot not reserved");
        skip.push(err.subscriptionId);
        continue;
      }
      // Anything else (the database, the pin after a commit): stop reserving, still send what is reserved.
      deps.logger.warn({ err }, "subscription slots not reserved this tick; sending the reserved ones");
      break;
    }
    if (!slot) break;
    if (slot !== "skipped") {
      work.push(slot);
      reserved++;
    }
  }
  let created = 0;
  let failed = 0;
  for (const item of work) {
    try {
      await sendSlot(deps, item);
      created++;
    } catch (err) {
      failed++;
      if (err instanceof RelayerCallError && err.code === "TX_REVERTED" && refusedByVault(err.errorName)) {
        // Definitive: the vault says no run is due (or possible). Release the slot and take the chain's state.
        await release(deps, item).catch((e) => deps.logger.warn({ err: e, ...item }, "slot not released"));
        deps.logger.info({ ...item, reason: err.errorName }, "subscription slot refused by the vault; released");
        continue;
      }
      deps.logger.warn({ err, ...item }, "subscription run not created yet; retried next tick");
      await recordSlotFailure(deps, item, String((err as Error).message ?? err));
    }
  }
  return { reserved, created, failed };
}

/** A due subscription whose slot could not be reserved; its transaction rolled back. */
class ReservationFailed extends Error {
  constructor(
    readonly subscriptionId: number,
    cause: unknown,
  ) {
    super(`subscription ${subscriptionId}: slot not reserved`, { cause });
  }
}

/** Reserves the next due slot of one ACTIVE subscription (not in `skip`), or returns null when none is due. */
async function reserveNext(deps: Deps, now: bigint, skip: readonly number[]): Promise<Slot | "skipped" | null> {
  const reservation = await withTransaction(deps.pool, async (client) => {
    const sub = await lockNextDue(client, now, skip);
    if (!sub) return null;
    try {
      return await reserveSlotFor(deps, client, sub, now);
    } catch (err) {
      throw new ReservationFailed(sub.id, err);
    }
  });
  if (reservation === null || reservation === "skipped") return reservation;
  await deps.ipfs.pinStored(reservation.cid);
  const { cid: _, ...slot } = reservation;
  return slot;
}

/** In the caller's transaction: the draft run, its request document and the PENDING slot of locked row `sub`. */
async function reserveSlotFor(deps: Deps, client: pg.PoolClient, sub: SubscriptionRow, now: bigint) {
  const id = sub.id;
  const perRun = BigInt(sub.rewardPerRun) + BigInt(sub.feePerRun);
  const balance = BigInt(sub.balanceRemaining);
  if (balance < perRun) {
    // Cannot happen after a debit (EXHAUSTED is set eagerly), but a row edited by hand must not loop.
    await markExhausted(client, id);
    return "skipped" as const;
  }
  const slot = await nextSlot(client, id);
  const scheduledFor = BigInt(sub.nextRunAt!);
  // The vault's run count (what `done` and the title count), which runs ahead of the slots after direct triggers.
  const runsCreated = sub.runsCreated + 1;
  const balanceAfter = balance - perRun;
  const done = sub.totalRuns !== null && runsCreated >= sub.totalRuns;
  // The vault refunds what is left after the last run; the mirror shows it as soon as the run is sent.
  const status = done ? "COMPLETED" : balanceAfter < perRun ? "EXHAUSTED" : "ACTIVE";
  const nextRunAt = done ? null : scheduledFor + BigInt(sub.everySeconds);

  const poster = getAddress(sub.posterAddress);
  const deadline = runDeadline(now, sub.everySeconds);
  const db = { db: createDb(client) };
  const runId = await nextRunId(db);
  const title = `${sub.task.slice(0, 80)} (subscription ${id}, run ${runsCreated}${sub.totalRuns === null ? "" : `/${sub.totalRuns}`})`;
  const createdAt = new Date();
  // Stored in this transaction; pinned after the commit (no network I/O while the connection is held).
  const stored = await deps.ipfs.putJson(
    {
      type: "agenthub.run-request.v1",
      bountyId: runId,
      chainId: deps.deployments.chainId,
      escrow: deps.deployments.contracts.RunEscrow.address,
      poster,
      title,
      description: sub.task,
      reward: sub.rewardPerRun,
      fee: sub.feePerRun,
      currency: "USDC",
      deadline: new Date(Number(deadline) * 1000).toISOString(),
      maxRevisions: SUBSCRIPTION_RUN_MAX_REVISIONS,
      subscription: {
        id,
        slot,
        cadence: sub.cadence,
        scheduledFor: new Date(Number(scheduledFor) * 1000).toISOString(),
      },
      createdAt: createdAt.toISOString(),
    },
    client,
  );
  await insertDraft(db, {
    id: runId,
    poster,
    title,
    description: sub.task,
    reward: BigInt(sub.rewardPerRun),
    deadline,
    maxRevisions: SUBSCRIPTION_RUN_MAX_REVISIONS,
    requestCid: stored.cid,
    createdAt,
  });
  await reserveSlot(client, {
    subscriptionId: id,
    slot,
    runId,
    scheduledFor,
    amount: perRun,
    runsCreated,
    balanceAfter,
    status,
    nextRunAt,
  });
  return { subscriptionId: id, slot, runId, cid: stored.cid };
}

/** Creates a reserved slot's run on chain (or finds the transaction an earlier attempt sent) and links it. */
async function sendSlot(deps: Deps, item: Slot): Promise<void> {
  const run = (await slotRun(deps, item.runId))!;
  if (run.onchainRunId === null) {
    const sub = (await findSubscription(deps, item.subscriptionId))!;
    const uri = `ipfs://${run.requestCid}`;
    const v = vault(deps);
    const result = await deps.relayer.call(
      "SubscriptionVault",
      v.abi,
      "trigger",
      [BigInt(sub.vaultId!), uri],
      `subscription-run:${item.subscriptionId}:${item.slot}:${item.runId}`,
      { subscriptionId: BigInt(sub.vaultId!) },
    );
    const created = parseEventLogs({
      abi: RunEscrowAbi,
      eventName: "RunCreated",
      logs: result.logs.filter((l) => isAddressEqual(l.address, deps.deployments.contracts.RunEscrow.address)) as never,
    }).find((l) => (l.args as { metadataUri: string }).metadataUri === uri);
    if (!created) throw new Error(`transaction ${result.txHash} has no RunCreated for run ${item.runId}`);
    const triggered = vaultEvent(deps, result.logs as never, "RunTriggered");
    const completed = vaultEvent(deps, result.logs as never, "SubscriptionCompleted");
    // Link it once the indexer shows it, so the runs API answers OPEN as soon as the slot reads CREATED.
    await waitForRunTx(deps, result).catch((err) =>
      deps.logger.warn({ err, runId: item.runId }, "subscription run not indexed yet"),
    );
    await recordSlotCreated(deps, {
      slot: item,
      onchainRunId: (created.args as { runId: bigint }).runId,
      txHash: result.txHash,
      amount: (triggered?.args.amount as bigint | undefined) ?? 0n,
      refund: (completed?.args.refund as bigint | undefined) ?? 0n,
      run: { poster: run.poster, title: run.title, reward: run.reward, deadline: run.deadline },
      agentView: deps.views.names.agent,
    });
  } else {
    await markSlotCreated(deps, item);
  }
  // The mirror takes the vault's numbers (balance after the fee in force, refund on completion).
  await syncFromChain(deps, (await findSubscription(deps, item.subscriptionId))!);
}

/** Vault errors that mean "no run now": the slot is released rather than retried. */
const refusedByVault = (name: string | undefined) =>
  name !== undefined &&
  ["SubscriptionVaultNotDue", "SubscriptionVaultInsufficientBalance", "SubscriptionVaultInvalidStatus"].includes(name);

/** Drops a reserved slot the vault refused (its run never existed on chain) and takes the vault's state. */
async function release(deps: Deps, item: Slot): Promise<void> {
  await releaseSlot(deps, item);
  await syncFromChain(deps, (await findSubscription(deps, item.subscriptionId))!);
}

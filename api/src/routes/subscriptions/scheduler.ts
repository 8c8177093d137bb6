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
import { getAddress, isAddressEqual, parseEventLogs } from "viem";
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { DAY } from "../../domain/cadence.ts";
import { recordBountyCreated } from "../../webhooks/bounty-events.ts";
import { chainNow, waitForRunTx } from "../runs/escrow.ts";
import { findSubscription, type SubscriptionRow } from "./repository.ts";
import { SUBSCRIPTION_RUN_MAX_REVISIONS, syncFromChain, vault, vaultEvent } from "./vault.ts";

export { SUBSCRIPTION_RUN_MAX_REVISIONS };

/** Most slots reserved per tick (a backlog drains over several ticks). */
const MAX_SLOTS_PER_TICK = 50;

/** A run's deadline: one interval after it is created, at least one day. */
export const runDeadline = (createdAt: bigint, everySeconds: number) => createdAt + BigInt(Math.max(everySeconds, DAY));

interface Reserved {
  subscriptionId: number;
  slot: number;
  runId: number;
}

/** One tick: send reserved-but-unsent slots, then reserve and send every due slot. */
export async function runDueSubscriptions(deps: Deps): Promise<{ reserved: number; created: number; failed: number }> {
  const now = await chainNow(deps);
  const pending = await deps.pool.query<{ subscription_id: string; slot: number; run_id: string }>(
    "select subscription_id, slot, run_id from api.subscription_run where status = 'PENDING' order by created_at limit $1",
    [MAX_SLOTS_PER_TICK],
  );
  const work: Reserved[] = pending.rows.map((r) => ({
    subscriptionId: Number(r.subscription_id),
    slot: r.slot,
    runId: Number(r.run_id),
  }));
  let reserved = 0;
  while (reserved < MAX_SLOTS_PER_TICK) {
    const slot = await reserveNext(deps, now);
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
      await deps.pool.query(
        "update api.subscription_run set attempts = attempts + 1, last_error = $3 where subscription_id = $1 and slot = $2",
        [item.subscriptionId, item.slot, String((err as Error).message ?? err).slice(0, 500)],
      );
    }
  }
  return { reserved, created, failed };
}

/** Reserves the next due slot of one ACTIVE subscription, or returns null when none is due. */
async function reserveNext(deps: Deps, now: bigint): Promise<Reserved | "skipped" | null> {
  return await withTransaction(deps.pool, async (client) => {
    const r = await client.query<SubscriptionRow>(
      `select * from api.subscription where status = 'ACTIVE' and next_run_at <= $1
       order by next_run_at, id limit 1 for update skip locked`,
      [now.toString()],
    );
    const sub = r.rows[0];
    if (!sub) {
      return null;
    }
    const id = Number(sub.id);
    const perRun = BigInt(sub.reward_per_run) + BigInt(sub.fee_per_run);
    const balance = BigInt(sub.balance_remaining);
    if (balance < perRun) {
      // Cannot happen after a debit (EXHAUSTED is set eagerly), but a row edited by hand must not loop.
      await client.query("update api.subscription set status = 'EXHAUSTED', updated_at = now() where id = $1", [id]);
      return "skipped";
    }
    const slot = sub.runs_created;
    const scheduledFor = BigInt(sub.next_run_at!);
    const runsCreated = slot + 1;
    const balanceAfter = balance - perRun;
    const done = sub.total_runs !== null && runsCreated >= sub.total_runs;
    // The vault refunds what is left after the last run; the mirror shows it as soon as the run is sent.
    const forfeit = 0n;
    const status = done ? "COMPLETED" : balanceAfter < perRun ? "EXHAUSTED" : "ACTIVE";
    const nextRunAt = done ? null : (scheduledFor + BigInt(sub.every_seconds)).toString();

    const poster = getAddress(sub.poster_address);
    const deadline = runDeadline(now, sub.every_seconds);
    const runId = Number((await client.query<{ id: string }>("select nextval('api.run_id_seq')::text id")).rows[0]!.id);
    const stored = await deps.ipfs.putJson({
      type: "agenthub.run-request.v1",
      bountyId: runId,
      chainId: deps.deployments.chainId,
      escrow: deps.deployments.contracts.RunEscrow.address,
      poster,
      title: `${sub.task.slice(0, 80)} (subscription ${id}, run ${runsCreated}${sub.total_runs === null ? "" : `/${sub.total_runs}`})`,
      description: sub.task,
      reward: sub.reward_per_run,
      fee: sub.fee_per_run,
      currency: "USDC",
      deadline: new Date(Number(deadline) * 1000).toISOString(),
      maxRevisions: SUBSCRIPTION_RUN_MAX_REVISIONS,
      subscription: {
        id,
        slot,
        cadence: sub.cadence,
        scheduledFor: new Date(Number(scheduledFor) * 1000).toISOString(),
      },
      createdAt: new Date().toISOString(),
    });
    await client.query(
      `insert into api.run (id, poster_address, title, description, reward, deadline, max_revisions, request_cid)
       values ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        runId,
        poster,
        `${sub.task.slice(0, 80)} (subscription ${id}, run ${runsCreated}${sub.total_runs === null ? "" : `/${sub.total_runs}`})`,
        sub.task,
        sub.reward_per_run,
        deadline.toString(),
        SUBSCRIPTION_RUN_MAX_REVISIONS,
        stored.cid,
      ],
    );
    await client.query(
      `insert into api.subscription_run (subscription_id, slot, run_id, scheduled_for, amount, status)
       values ($1, $2, $3, $4, $5, 'PENDING')`,
      [id, slot, runId, scheduledFor.toString(), perRun.toString()],
    );
    await client.query(
      `update api.subscription set runs_created = $2, balance_remaining = $3, status = $4, next_run_at = $5,
         updated_at = now() where id = $1`,
      [id, runsCreated, (balanceAfter - forfeit).toString(), status, nextRunAt],
    );
    return { subscriptionId: id, slot, runId };
  });
}

/** Creates a reserved slot's run on chain (or finds the transaction an earlier attempt sent) and links it. */
async function sendSlot(deps: Deps, item: Reserved): Promise<void> {
  const r = await deps.pool.query<{
    poster_address: string;
    reward: string;
    deadline: string;
    max_revisions: number;
    request_cid: string;
    onchain_run_id: string | null;
    title: string;
  }>(
    "select poster_address, reward, deadline, max_revisions, request_cid, onchain_run_id, title from api.run where id = $1",
    [item.runId],
  );
  const run = r.rows[0]!;
  if (run.onchain_run_id === null) {
    const sub = await findSubscription(deps, item.subscriptionId);
    const uri = `ipfs://${run.request_cid}`;
    const v = vault(deps);
    const result = await deps.relayer.call(
      "SubscriptionVault",
      v.abi,
      "trigger",
      [BigInt(sub.vault_id!), uri],
      `subscription-run:${item.subscriptionId}:${item.slot}:${item.runId}`,
    );
    const created = parseEventLogs({
      abi: RunEscrowAbi,
      eventName: "RunCreated",
      logs: result.logs.filter((l) => isAddressEqual(l.address, deps.deployments.contracts.RunEscrow.address)) as never,
    }).find((l) => (l.args as { metadataUri: string }).metadataUri === uri);
    if (!created) throw new Error(`transaction ${result.txHash} has no RunCreated for run ${item.runId}`);
    const onchainRunId = (created.args as { runId: bigint }).runId;
    const triggered = vaultEvent(deps, result.logs as never, "RunTriggered");
    const completed = vaultEvent(deps, result.logs as never, "SubscriptionCompleted");
    const refund = (completed?.args.refund as bigint | undefined) ?? 0n;
    // Link it once the indexer shows it, so the runs API answers OPEN as soon as the slot reads CREATED.
    await waitForRunTx(deps, result).catch((err) =>
      deps.logger.warn({ err, runId: item.runId }, "subscription run not indexed yet"),
    );
    await withTransaction(deps.pool, async (client) => {
      const linked = await client.query(
        "update api.run set onchain_run_id = $2, funding_tx = $3, funded_at = now() where id = $1 and onchain_run_id is null",
        [item.runId, onchainRunId.toString(), result.txHash.toLowerCase()],
      );
      // The run is OPEN: bounty.created for the subscriber's organizations, as for a run funded through the API.
      if (linked.rowCount === 1) {
        const created = { id: item.runId, poster: run.poster_address, title: run.title, reward: run.reward };
        await recordBountyCreated(
          client,
          deps.views.names.agent,
          { ...created, deadline: run.deadline },
          result.txHash,
        );
      }
      await client.query(
        "update api.subscription_run set status = 'CREATED', tx_hash = $3, attempts = attempts + 1, last_error = null where subscription_id = $1 and slot = $2",
        [item.subscriptionId, item.slot, result.txHash.toLowerCase()],
      );
      await client.query(
        `insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, tx_hash, run_id)
         select $1, 'run', $2, balance_remaining, $3, $4 from api.subscription where id = $1`,
        [item.subscriptionId, String(triggered?.args.amount ?? 0n), result.txHash.toLowerCase(), item.runId],
      );
      if (refund > 0n) {
        await client.query("update api.subscription set refunded = refunded + $2 where id = $1", [
          item.subscriptionId,
          refund.toString(),
        ]);
        await client.query(
          "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, tx_hash) values ($1, 'refund', $2, 0, $3)",
          [item.subscriptionId, refund.toString(), result.txHash.toLowerCase()],
        );
      }
      await client.query(
        "insert into api.run_action (run_id, action, signer, tx_hash, detail) values ($1, 'fund-run', null, $2, $3)",
        [
          item.runId,
          result.txHash.toLowerCase(),
          JSON.stringify({ subscriptionId: item.subscriptionId, slot: item.slot }),
        ],
      );
    });
  } else {
    await deps.pool.query(
      "update api.subscription_run set status = 'CREATED' where subscription_id = $1 and slot = $2",
      [item.subscriptionId, item.slot],
    );
  }
  // The mirror takes the vault's numbers (balance after the fee in force, refund on completion).
  await syncFromChain(deps, await findSubscription(deps, item.subscriptionId));
}

/** Vault errors that mean "no run now": the slot is released rather than retried. */
const refusedByVault = (name: string | undefined) =>
  name !== undefined &&
  ["SubscriptionVaultNotDue", "SubscriptionVaultInsufficientBalance", "SubscriptionVaultInvalidStatus"].includes(name);

/** Drops a reserved slot the vault refused (its run never existed on chain) and takes the vault's state. */
async function release(deps: Deps, item: Reserved): Promise<void> {
  await withTransaction(deps.pool, async (client) => {
    await client.query(
      "delete from api.subscription_run where subscription_id = $1 and slot = $2 and status = 'PENDING'",
      [item.subscriptionId, item.slot],
    );
    await client.query("delete from api.run where id = $1 and onchain_run_id is null", [item.runId]);
  });
  await syncFromChain(deps, await findSubscription(deps, item.subscriptionId));
}

// The subscription scheduler (pg-boss job "subscription-runs"): reserves each due run slot in one database
// transaction (balance debited, schedule advanced, status moved to EXHAUSTED / COMPLETED), then creates the run
// on chain through the relayer with RunEscrow.createSponsoredRun (poster = the subscriber, paid from the
// platform subscription account). Idempotent and safe with several processes: due rows are taken with
// FOR UPDATE SKIP LOCKED, each slot is a primary key, and each relayed transaction carries the idempotency key
// subscription-run:<id>:<slot>, so a retried slot gets the same transaction, never a second one.
import { RunEscrowAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress, isAddressEqual, maxUint256, parseEventLogs } from "viem";
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { DAY } from "../../domain/cadence.ts";
import { chainNow, waitForRunTx } from "../runs/escrow.ts";
import { type SubscriptionRow, subscriptionAccount } from "./repository.ts";

/** Revisions allowed on each subscription run. */
export const SUBSCRIPTION_RUN_MAX_REVISIONS = 2;
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
    const done = runsCreated >= sub.total_runs;
    // After the last run, any balance left (an overpayment) is kept by the platform and recorded as forfeited.
    const forfeit = done ? balanceAfter : 0n;
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
      title: `${sub.task.slice(0, 80)} (subscription ${id}, run ${runsCreated}/${sub.total_runs})`,
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
        `${sub.task.slice(0, 80)} (subscription ${id}, run ${runsCreated}/${sub.total_runs})`,
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
      `update api.subscription set runs_created = $2, balance_remaining = $3, forfeited = forfeited + $4,
         status = $5, next_run_at = $6, updated_at = now() where id = $1`,
      [id, runsCreated, (balanceAfter - forfeit).toString(), forfeit.toString(), status, nextRunAt],
    );
    await client.query(
      "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after, run_id) values ($1, 'run', $2, $3, $4)",
      [id, perRun.toString(), balanceAfter.toString(), runId],
    );
    if (forfeit > 0n) {
      await client.query(
        "insert into api.subscription_ledger (subscription_id, kind, amount, balance_after) values ($1, 'forfeit', $2, 0)",
        [id, forfeit.toString()],
      );
    }
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
  }>("select poster_address, reward, deadline, max_revisions, request_cid, onchain_run_id from api.run where id = $1", [
    item.runId,
  ]);
  const run = r.rows[0]!;
  if (run.onchain_run_id === null) {
    const reward = BigInt(run.reward);
    const amount = reward + (reward * 500n) / 10_000n;
    await ensureAllowance(deps, amount);
    const uri = `ipfs://${run.request_cid}`;
    const result = await deps.relayer.call(
      "RunEscrow",
      RunEscrowAbi,
      "createSponsoredRun",
      [getAddress(run.poster_address), reward, BigInt(run.deadline), run.max_revisions, uri],
      `subscription-run:${item.subscriptionId}:${item.slot}`,
    );
    const created = parseEventLogs({
      abi: RunEscrowAbi,
      eventName: "RunCreated",
      logs: result.logs.filter((l) => isAddressEqual(l.address, deps.deployments.contracts.RunEscrow.address)) as never,
    }).find((l) => (l.args as { metadataUri: string }).metadataUri === uri);
    if (!created) throw new Error(`transaction ${result.txHash} has no RunCreated for run ${item.runId}`);
    const onchainRunId = (created.args as { runId: bigint }).runId;
    // Link it once the indexer shows it, so the runs API answers OPEN as soon as the slot reads CREATED.
    await waitForRunTx(deps, result).catch((err) =>
      deps.logger.warn({ err, runId: item.runId }, "subscription run not indexed yet"),
    );
    await withTransaction(deps.pool, async (client) => {
      await client.query(
        "update api.run set onchain_run_id = $2, funding_tx = $3, funded_at = now() where id = $1 and onchain_run_id is null",
        [item.runId, onchainRunId.toString(), result.txHash.toLowerCase()],
      );
      await client.query(
        "update api.subscription_run set status = 'CREATED', tx_hash = $3, attempts = attempts + 1, last_error = null where subscription_id = $1 and slot = $2",
        [item.subscriptionId, item.slot, result.txHash.toLowerCase()],
      );
      await client.query("update api.subscription_ledger set tx_hash = $2 where run_id = $1 and kind = 'run'", [
        item.runId,
        result.txHash.toLowerCase(),
      ]);
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
}

/** The relayer's USDC allowance to the escrow covers `amount`, or it approves the maximum (once per state). */
async function ensureAllowance(deps: Deps, amount: bigint): Promise<void> {
  const account: Address = await subscriptionAccount(deps);
  const escrow = deps.deployments.contracts.RunEscrow.address;
  const allowance = await deps.chain.readContract({
    address: deps.deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "allowance",
    args: [account, escrow],
  });
  if (allowance >= amount) return;
  await deps.relayer.call(
    "USDC",
    TestUSDCAbi,
    "approve",
    [escrow, maxUint256],
    `subscription-allowance:${escrow.toLowerCase()}:${allowance}`,
  );
}

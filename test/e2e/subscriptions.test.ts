// Subscriptions on the real stack: prepaid balances escrowed per subscriber in the SubscriptionVault (opened by the
// relayer from the subscriber's EIP-712 consent + USDC permit), SIWE-signed writes, the pg-boss scheduler having the
// vault create runs on chain as chain time advances; balances checked to the base unit on chain.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { SubscriptionVaultAbi } from "@agenthub/common/generated/abis";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { faucet, signedAction } from "../support/agents.ts";
import { escrowRun, signConsent, usdcBalance } from "../support/runs.ts";
import {
  api,
  db,
  dbNow,
  deployments,
  increaseTime,
  jobRanSince,
  newWallet,
  publicClient,
  waitUntil,
} from "../support/stack.ts";
import { createSubscription, subscriptionBody, topupSubscription } from "../support/subscriptions.ts";

after(() => db.end());

const DAY = 86_400;
const REWARD = 1_000_000n; // 1 USDC
const PER_RUN = REWARD + (REWARD * 5n) / 100n; // + 5% fee

type Wallet = ReturnType<typeof newWallet>;

async function poster(usdc = 100_000_000n): Promise<Wallet> {
  const w = newWallet();
  await faucet(w.address, usdc, 10n ** 17n);
  return w;
}

const vault = deployments.contracts.SubscriptionVault.address;
const relayer = privateKeyToAccount(devAccounts.relayer).address;

const create = (p: Wallet, instructions: string, paid: bigint, reward = REWARD) =>
  createSubscription(p.key, instructions, paid, reward);

const vaultBalanceOf = async (vaultId: number) =>
  publicClient.readContract({
    address: vault,
    abi: SubscriptionVaultAbi,
    functionName: "balanceOf",
    args: [BigInt(vaultId)],
  });

async function act(p: Wallet, id: number, action: "pause" | "resume" | "cancel", signer: Wallet = p) {
  const signed = await signedAction(signer.key, `subscription-${action}`, "subscription", id);
  return action === "cancel"
    ? api("DELETE", `/api/subscriptions/${id}`, { body: signed })
    : api("POST", `/api/subscriptions/${id}/${action}`, { body: signed });
}

const topup = (p: Wallet, id: number, amount: bigint) => topupSubscription(p.key, id, amount);

/** The subscription (GET /:id answers its own shape) and its runs (GET /:id/runs). */
const detail = async (id: number) => {
  const res = await api("GET", `/api/subscriptions/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const runs = await api("GET", `/api/subscriptions/${id}/runs`);
  assert.equal(runs.status, 200, JSON.stringify(runs.body));
  assert.equal(runs.body.total, runs.body.runs.length);
  return { subscription: res.body as Record<string, any>, runs: runs.body.runs as Record<string, any>[] };
};

/** Waits until the scheduler has created `n` runs of subscription `id` on chain. */
const runsCreated = (id: number, n: number) =>
  waitUntil(`subscription ${id}: ${n} runs on chain`, async () => {
    const d = await detail(id);
    return d.runs.length >= n && d.runs.every((r) => r.status === "CREATED") ? d : undefined;
  });

/** One whole scheduler pass that started after this point (what "nothing more happens" is measured against). */
const ticks = async () => jobRanSince("subscription-runs", await dbNow());

const errorOf = (res: { status: number; body: any }, status: number, code: string) => {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
};

describe("subscriptions: preview", () => {
  it("detects the cadence and the costs without creating anything", async () => {
    const before = (await db.query("select count(*)::int n from api.subscription")).rows[0].n;
    const q = new URLSearchParams({
      instructions: "Summarize AI news every 6 hours for 3 days",
      rewardPerRun: "2000000",
    });
    const res = await api("GET", `/api/subscriptions/parse-cadence?${q}`);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.detected.interval, "every 6 hours");
    assert.equal(res.body.detected.everySeconds, 6 * 3600);
    assert.equal(res.body.detected.totalRuns, 12);
    assert.equal(res.body.detected.task, "Summarize AI news");
    assert.equal(Date.parse(res.body.detected.endsAt) - Date.parse(res.body.detected.startsAt), 3 * DAY * 1000);
    assert.deepEqual(res.body.costs, {
      rewardPerRun: "2000000",
      platformFeePerRun: "100000",
      totalPerRun: "2100000",
      totalRuns: 12,
      total: "25200000",
    });
    assert.equal(res.body.vault, vault);
    assert.deepEqual(res.body.terms, {
      rewardPerRun: "2000000",
      interval: 6 * 3600,
      startsAt: Date.parse(res.body.detected.startsAt) / 1000,
      totalRuns: 12,
      runDuration: DAY,
      maxRevisions: 2,
    });
    assert.equal(res.body.limits.maxRuns, 366);
    assert.deepEqual(
      res.body.detected.nextRuns.map((t: string) => Date.parse(t) - Date.parse(res.body.detected.startsAt)),
      [0, 6, 12, 18, 24].map((h) => h * 3600 * 1000),
      "the next runs, one interval apart",
    );
    assert.equal(res.body.detected.anchor, null);
    assert.equal((await db.query("select count(*)::int n from api.subscription")).rows[0].n, before);
  });

  it("parses open-ended cadences and says when the next runs fall", async () => {
    const preview = async (instructions: string) => {
      const res = await api(
        "GET",
        `/api/subscriptions/parse-cadence?${new URLSearchParams({ instructions, rewardPerRun: "1000000" })}`,
      );
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body;
    };
    const chainNow = Number((await (await import("../support/stack.ts")).publicClient.getBlock()).timestamp) * 1000;
    const monday = await preview("Send the status report every Monday at 9:00 UTC");
    assert.equal(monday.detected.cadence, "every monday at 09:00 UTC");
    assert.equal(monday.detected.totalRuns, null);
    assert.equal(monday.detected.endsAt, null);
    assert.deepEqual(monday.detected.anchor, { weekday: "monday", timeOfDay: "09:00 UTC" });
    assert.equal(monday.costs.total, null);
    assert.equal(monday.costs.totalPerRun, "1050000");
    assert.equal(monday.detected.nextRuns.length, 5);
    for (const [i, t] of monday.detected.nextRuns.entries()) {
      const d = new Date(t);
      assert.equal(d.getUTCDay(), 1, `${t} is a Monday`);
      assert.equal(d.getUTCHours(), 9);
      assert.equal(d.getUTCMinutes(), 0);
      if (i === 0) {
        assert.ok(d.getTime() >= chainNow - 2000 && d.getTime() - chainNow <= 7 * DAY * 1000, "the next Monday");
      } else {
        assert.equal(d.getTime() - Date.parse(monday.detected.nextRuns[i - 1]), 7 * DAY * 1000);
      }
    }
    for (const [text, every] of [
      ["Summarize AI news daily", DAY],
      ["weekly: write a market report", 7 * DAY],
      ["Post a digest twice a week", 3.5 * DAY],
    ] as const) {
      const res = await preview(text);
      assert.equal(res.detected.everySeconds, every, text);
      assert.equal(res.detected.totalRuns, null, text);
      assert.equal(Date.parse(res.detected.nextRuns[1]) - Date.parse(res.detected.nextRuns[0]), every * 1000, text);
    }
    // A bounded schedule lists at most its runs.
    assert.equal((await preview("do x daily for 2 days")).detected.nextRuns.length, 2);
  });

  it("rejects bad cadences, limits, rewards and input with clear codes", async () => {
    const preview = (instructions: string, rewardPerRun = "1000000") =>
      api("GET", `/api/subscriptions/parse-cadence?${new URLSearchParams({ instructions, rewardPerRun })}`);
    const invalid = await preview("Summarize AI news");
    errorOf(invalid, 400, "INVALID_CADENCE");
    assert.match(invalid.body.error.message, /daily for 30 days/, "the message carries a hint");
    errorOf(await preview("Summarize AI news every monday at 9:00 PST"), 400, "INVALID_CADENCE");
    errorOf(await preview("do x every 10 minutes for a day"), 400, "SUBSCRIPTION_LIMIT_EXCEEDED");
    errorOf(await preview("do x hourly for 30 days"), 400, "SUBSCRIPTION_LIMIT_EXCEEDED");
    errorOf(await preview("daily for 30 days"), 400, "TASK_REQUIRED");
    errorOf(await preview("do x daily for 3 days", "9999"), 400, "INVALID_REWARD");
    errorOf(await preview("do x daily for 3 days", "-5"), 400, "VALIDATION_ERROR");
    errorOf(await api("GET", "/api/subscriptions/parse-cadence?rewardPerRun=1"), 400, "VALIDATION_ERROR");
  });
});

describe("subscriptions: lifecycle", () => {
  it("creates runs on chain from the prepaid balance as chain time advances, then COMPLETED", async () => {
    const p = await poster();
    const posterBefore = await usdcBalance(p.address);
    const relayerBefore = await usdcBalance(relayer);
    const vaultBefore = await usdcBalance(vault);
    const res = await create(p, "Write a haiku about the weather daily for 3 days", PER_RUN * 3n);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const { subscription: sub, detected, costs } = res.body;
    assert.equal(await usdcBalance(p.address), posterBefore - PER_RUN * 3n, "the poster paid the prepaid total");
    assert.equal(await usdcBalance(vault), vaultBefore + PER_RUN * 3n, "escrowed in the vault");
    assert.equal(await usdcBalance(relayer), relayerBefore, "not in the relayer's wallet");
    assert.equal(await vaultBalanceOf(sub.vaultSubscriptionId), PER_RUN * 3n);
    assert.equal(sub.status, "ACTIVE");
    assert.equal(sub.posterAddress, p.address);
    assert.equal(sub.cadence, "daily for 3 days");
    assert.equal(sub.totalRuns, 3);
    assert.equal(sub.rewardPerRun, REWARD.toString());
    assert.equal(sub.balanceRemaining, (PER_RUN * 3n).toString());
    assert.equal(detected.task, "Write a haiku about the weather");
    assert.equal(costs.total, (PER_RUN * 3n).toString());
    // The vault starts at max(signed start, the block's time): the same second or a few later.
    const lag = Date.parse(sub.nextRunAt) - Date.parse(detected.startsAt);
    assert.ok(lag >= 0 && lag <= 10_000, `first run ${sub.nextRunAt} vs ${detected.startsAt}`);

    // First run: due at creation.
    const vaultMid = await usdcBalance(vault);
    const first = await runsCreated(sub.id, 1);
    assert.equal(first.runs.length, 1);
    assert.equal(first.subscription.runsCreated, 1);
    assert.equal(first.subscription.balanceRemaining, (PER_RUN * 2n).toString());
    assert.equal(
      Date.parse(first.subscription.nextRunAt),
      Date.parse(sub.nextRunAt) + DAY * 1000,
      "next run one interval after the first",
    );
    const run = await api("GET", `/api/runs/${first.runs[0]!.bountyId}`);
    assert.equal(run.status, 200);
    assert.equal(run.body.state, "OPEN");
    assert.equal(run.body.posterAddress, p.address);
    assert.equal(run.body.reward, REWARD.toString());
    assert.equal(run.body.description, "Write a haiku about the weather");
    const onchain = await escrowRun(run.body.onchainRunId);
    assert.equal(onchain.poster, p.address, "the subscriber is the on-chain poster");
    assert.equal(onchain.reward, REWARD);
    assert.equal(await usdcBalance(vault), vaultMid - PER_RUN, "the vault paid the escrow reward + fee");
    assert.equal(await vaultBalanceOf(sub.vaultSubscriptionId), PER_RUN * 2n);
    assert.equal(await usdcBalance(relayer), relayerBefore, "the relayer paid nothing");

    // The poster acts on it through the runs API as usual: cancelling refunds the poster's wallet.
    const posterMid = await usdcBalance(p.address);
    const cancelled = await api("POST", `/api/runs/${first.runs[0]!.bountyId}/cancel`, {
      body: {
        ...(await signedAction(p.key, "cancel-run", "run", first.runs[0]!.bountyId)),
        consent: await signConsent(p.key, first.runs[0]!.bountyId, "cancel"),
      },
    });
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.run.state, "CANCELLED");
    assert.equal(await usdcBalance(p.address), posterMid + PER_RUN);

    // Nothing more before the next slot.
    await ticks();
    assert.equal((await detail(sub.id)).runs.length, 1);

    await increaseTime(DAY);
    const second = await runsCreated(sub.id, 2);
    assert.equal(second.subscription.balanceRemaining, PER_RUN.toString());
    assert.equal(second.subscription.status, "ACTIVE");

    await increaseTime(DAY);
    const third = await runsCreated(sub.id, 3);
    assert.equal(third.subscription.status, "COMPLETED");
    assert.equal(third.subscription.balanceRemaining, "0");
    assert.equal(third.subscription.nextRunAt, null);
    assert.deepEqual(
      third.runs.map((r) => r.slot),
      [0, 1, 2],
    );
    assert.equal(new Set(third.runs.map((r) => r.txHash)).size, 3, "one transaction per run");

    // A completed subscription stays completed: no more runs, no writes.
    await increaseTime(DAY);
    await ticks();
    assert.equal((await detail(sub.id)).runs.length, 3);
    errorOf(await act(p, sub.id, "pause"), 409, "INVALID_SUBSCRIPTION_STATE");
    errorOf(await act(p, sub.id, "cancel"), 409, "INVALID_SUBSCRIPTION_STATE");

    const ledger = await db.query(
      "select kind, amount::text from api.subscription_ledger where subscription_id = $1 order by id",
      [sub.id],
    );
    assert.deepEqual(
      ledger.rows.map((r) => `${r.kind}:${r.amount}`),
      [`fund:${PER_RUN * 3n}`, `run:${PER_RUN}`, `run:${PER_RUN}`, `run:${PER_RUN}`],
    );
    assert.equal(await vaultBalanceOf(sub.vaultSubscriptionId), 0n);
  });

  it("goes EXHAUSTED when the balance cannot pay the next run, and a top-up resumes it", async () => {
    const p = await poster();
    // Two runs paid of four, plus 5 base units.
    const res = await create(p, "Check example.com every day for 4 days", PER_RUN * 2n + 5n);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.subscription.id as number;
    await runsCreated(id, 1);
    await increaseTime(DAY);
    const d = await runsCreated(id, 2);
    assert.equal(d.subscription.status, "EXHAUSTED");
    assert.equal(d.subscription.balanceRemaining, "5");
    await increaseTime(DAY);
    await ticks();
    assert.equal((await detail(id)).runs.length, 2, "no run without balance");

    // Too little to pay a run: credited, still EXHAUSTED.
    const small = await topup(p, id, 100n);
    assert.equal(small.status, 200, JSON.stringify(small.body));
    assert.equal(small.body.credited, "100");
    assert.equal(small.body.subscription.balanceRemaining, "105");
    assert.equal(small.body.subscription.status, "EXHAUSTED");

    const enough = await topup(p, id, PER_RUN * 2n);
    assert.equal(enough.status, 200, JSON.stringify(enough.body));
    assert.equal(enough.body.subscription.status, "ACTIVE");
    assert.equal(enough.body.subscription.balanceRemaining, (PER_RUN * 2n + 105n).toString());
    assert.equal(enough.body.subscription.totalFunded, (PER_RUN * 4n + 105n).toString());
    const after3 = await runsCreated(id, 3);
    assert.equal(after3.subscription.balanceRemaining, (PER_RUN + 105n).toString());
    await increaseTime(DAY);
    const walletBefore = await usdcBalance(p.address);
    const done = await runsCreated(id, 4);
    await waitUntil("COMPLETED", async () =>
      (await detail(id)).subscription.status === "COMPLETED" ? true : undefined,
    );
    const final = (await detail(id)).subscription;
    // The leftover of an overpayment goes back to the subscriber on chain.
    assert.equal(final.balanceRemaining, "0");
    assert.equal(final.refunded, "105");
    assert.equal(await usdcBalance(p.address), walletBefore + 105n);
    assert.equal(done.runs.length, 4);
  });

  it("pause stops creation, resume restarts it now, cancel refunds the balance on chain", async () => {
    const p = await poster();
    const res = await create(p, "Post a market summary daily for 5 days", PER_RUN * 5n);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.subscription.id as number;
    await runsCreated(id, 1);

    errorOf(await act(p, id, "resume"), 409, "INVALID_SUBSCRIPTION_STATE");
    const paused = await act(p, id, "pause");
    assert.equal(paused.status, 200, JSON.stringify(paused.body));
    assert.equal(paused.body.subscription.status, "PAUSED");
    errorOf(await act(p, id, "pause"), 409, "INVALID_SUBSCRIPTION_STATE");

    await increaseTime(2 * DAY);
    await ticks();
    assert.equal((await detail(id)).runs.length, 1, "paused: no runs");

    const resumed = await act(p, id, "resume");
    assert.equal(resumed.status, 200, JSON.stringify(resumed.body));
    assert.equal(resumed.body.subscription.status, "ACTIVE");
    // The missed slots are not replayed at once: one run now, the next one interval later.
    const d = await runsCreated(id, 2);
    await ticks();
    assert.equal((await detail(id)).runs.length, 2);
    assert.equal(d.subscription.balanceRemaining, (PER_RUN * 3n).toString());

    const walletBefore = await usdcBalance(p.address);
    const cancelled = await act(p, id, "cancel");
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.subscription.status, "CANCELLED");
    assert.equal(cancelled.body.refunded, (PER_RUN * 3n).toString());
    assert.equal(cancelled.body.subscription.balanceRemaining, "0");
    assert.equal(cancelled.body.subscription.refunded, (PER_RUN * 3n).toString());
    assert.equal(await usdcBalance(p.address), walletBefore + PER_RUN * 3n, "refunded to the subscriber on chain");
    assert.equal(cancelled.body.subscription.nextRunAt, null);
    await increaseTime(DAY);
    await ticks();
    assert.equal((await detail(id)).runs.length, 2, "cancelled: no runs");
    errorOf(await act(p, id, "resume"), 409, "INVALID_SUBSCRIPTION_STATE");
    errorOf(await act(p, id, "cancel"), 409, "INVALID_SUBSCRIPTION_STATE");
    errorOf(await topup(p, id, PER_RUN), 409, "INVALID_SUBSCRIPTION_STATE");
  });
});

describe("subscriptions: a mirror behind its slots", () => {
  it("a row whose schedule fell behind its own slots heals, and does not hold up the others", async () => {
    const p = await poster();
    const behind = (await create(p, "Summarize the news daily for 3 days", PER_RUN * 3n)).body.subscription;
    await runsCreated(behind.id, 1);
    // The row's schedule as it was before its first run (what a stale mirror looks like): due again, slot 0 taken.
    await db.query(
      `update api.subscription set runs_created = 0, next_run_at = $2, balance_remaining = $3 where id = $1`,
      [behind.id, Math.floor(Date.parse(behind.nextRunAt) / 1000), (PER_RUN * 3n).toString()],
    );
    // Due after it: the scheduler takes `behind` first and must still get to this one.
    const other = (await create(p, "Translate the changelog daily for 2 days", PER_RUN * 2n)).body.subscription;
    const slots = async (id: number) =>
      (await db.query("select slot, status from api.subscription_run where subscription_id = $1 order by slot", [id]))
        .rows;
    await waitUntil(`subscription ${other.id}: its first run`, async () => {
      const rows = await slots(other.id);
      return rows.length === 1 && rows[0].status === "CREATED" ? true : undefined;
    });
    // The extra slot the stale row asked for was refused by the vault (not due) and released; the row took the
    // vault's state back. Read from the table: GET /:id would resynchronize the row itself.
    await waitUntil(`subscription ${behind.id}: mirror healed`, async () => {
      const [row] = (
        await db.query("select runs_created, balance_remaining::text from api.subscription where id = $1", [behind.id])
      ).rows;
      return row.runs_created === 1 && (await slots(behind.id)).length === 1 ? row : undefined;
    });
    const healed = (await detail(behind.id)).subscription;
    assert.equal(healed.balanceRemaining, (PER_RUN * 2n).toString());
    assert.equal(Date.parse(healed.nextRunAt), Date.parse(behind.nextRunAt) + DAY * 1000);
    assert.equal(await vaultBalanceOf(behind.vaultSubscriptionId), PER_RUN * 2n, "no second run paid");
    assert.deepEqual(await slots(behind.id), [{ slot: 0, status: "CREATED" }]);
  });
});

describe("subscriptions: payments, signatures and reads", () => {
  it("checks the consent, the permit, the funds and the start; each consent opens once", async () => {
    const p = await poster(10n * PER_RUN);
    const instructions = "Translate the changelog weekly for 2 weeks";
    const post = (body: object) => api("POST", "/api/subscriptions", { body });
    const fresh = (amount = PER_RUN * 2n) => subscriptionBody(p.key, instructions, amount, REWARD);
    const count = async () =>
      (await db.query("select count(*)::int n from api.subscription where poster_address = $1", [p.address])).rows[0].n;
    const walletBefore = await usdcBalance(p.address);

    // Less than one run.
    errorOf(await post(await fresh(PER_RUN - 1n)), 400, "PAYMENT_MISMATCH");
    // The consent covers another amount than the body's (the relayer cannot take more than was signed).
    errorOf(await post({ ...(await fresh()), amount: (PER_RUN * 3n).toString() }), 400, "INVALID_PERMIT");
    const b = await fresh();
    const other = await subscriptionBody(p.key, instructions, PER_RUN * 3n, REWARD);
    errorOf(await post({ ...b, consent: other.consent }), 400, "INVALID_CONSENT");
    // Terms changed after signing: a bigger reward, another start.
    errorOf(await post({ ...(await fresh()), rewardPerRun: (REWARD * 2n).toString() }), 400, "INVALID_CONSENT");
    errorOf(await post({ ...(await fresh()), startsAt: b.startsAt - 3600 }), 400, "INVALID_START");
    // Signed by someone else.
    const stranger = await poster();
    const theirs = await subscriptionBody(stranger.key, instructions, PER_RUN * 2n, REWARD);
    const mine = await fresh();
    errorOf(await post({ ...mine, consent: theirs.consent }), 400, "INVALID_CONSENT");
    errorOf(await post({ ...(await fresh()), permit: theirs.permit }), 400, "INVALID_PERMIT");
    // More than the wallet holds.
    errorOf(await post(await fresh(PER_RUN * 11n)), 400, "INSUFFICIENT_FUNDS");
    assert.equal(await count(), 0);
    assert.equal(await usdcBalance(p.address), walletBefore, "nothing moved");

    const good = await fresh();
    const created = await post(good);
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.credited, (PER_RUN * 2n).toString());
    assert.equal(await usdcBalance(p.address), walletBefore - PER_RUN * 2n);
    // The same consent cannot open a second subscription, even with a new SIWE signature.
    errorOf(
      await post({ ...good, ...(await signedAction(p.key, "subscription-create", "subscription", "new")) }),
      400,
      "INVALID_CONSENT",
    );
    assert.equal(await count(), 1);
    assert.equal(await usdcBalance(p.address), walletBefore - PER_RUN * 2n);
    // Cancel: whatever the scheduler did not spend yet (one run, or both if the first was not created) comes back.
    const cancelled = await act(p, created.body.subscription.id, "cancel");
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    const refunded = BigInt(cancelled.body.refunded);
    assert.ok(refunded === PER_RUN || refunded === PER_RUN * 2n, `refunded ${refunded}`);
    assert.equal(await usdcBalance(p.address), walletBefore - PER_RUN * 2n + refunded, "the unspent balance came back");
  });

  it("reflects what the subscriber does on the vault directly: a cancel mid-period stops the runs", async () => {
    const p = await poster();
    const res = await create(p, "Watch the status page every 12 hours", PER_RUN * 4n);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.equal(res.body.subscription.totalRuns, null, "open-ended");
    const id = res.body.subscription.id as number;
    await runsCreated(id, 1);
    await increaseTime(6 * 3600);
    const walletBefore = await usdcBalance(p.address);
    const hash = await p.wallet.writeContract({
      address: vault,
      abi: SubscriptionVaultAbi,
      functionName: "cancelSubscription",
      args: [BigInt(res.body.subscription.vaultSubscriptionId)],
      chain: p.wallet.chain,
    });
    assert.equal((await publicClient.waitForTransactionReceipt({ hash })).status, "success");
    assert.equal(await usdcBalance(p.address), walletBefore + PER_RUN * 3n);
    const d = await detail(id);
    assert.equal(d.subscription.status, "CANCELLED");
    assert.equal(d.subscription.balanceRemaining, "0");
    await increaseTime(DAY);
    await ticks();
    assert.equal((await detail(id)).runs.length, 1, "nothing after the cancel");
    errorOf(await act(p, id, "resume"), 409, "INVALID_SUBSCRIPTION_STATE");
  });

  it("only the poster may act, with a fresh signature for that action and subscription", async () => {
    const p = await poster();
    const res = await create(p, "Review open pull requests daily for 10 days", PER_RUN * 10n);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.subscription.id as number;
    const stranger = await poster();

    // create signed by someone else than posterAddress
    const body = await subscriptionBody(p.key, "do x daily for 2 days", PER_RUN, REWARD);
    errorOf(
      await api("POST", "/api/subscriptions", {
        body: { ...body, ...(await signedAction(stranger.key, "subscription-create", "subscription", "new")) },
      }),
      403,
      "NOT_SUBSCRIPTION_POSTER",
    );
    errorOf(await act(p, id, "pause", stranger), 403, "NOT_SUBSCRIPTION_POSTER");
    errorOf(await act(p, id, "cancel", stranger), 403, "NOT_SUBSCRIPTION_POSTER");
    // Signed for another action, or another subscription.
    errorOf(
      await api("POST", `/api/subscriptions/${id}/pause`, {
        body: await signedAction(p.key, "subscription-cancel", "subscription", id),
      }),
      401,
      "INVALID_SIGNATURE",
    );
    errorOf(
      await api("POST", `/api/subscriptions/${id}/pause`, {
        body: await signedAction(p.key, "subscription-pause", "subscription", id + 1),
      }),
      401,
      "INVALID_SIGNATURE",
    );
    // A nonce works once.
    const signed = await signedAction(p.key, "subscription-pause", "subscription", id);
    assert.equal((await api("POST", `/api/subscriptions/${id}/pause`, { body: signed })).status, 200);
    await act(p, id, "resume");
    errorOf(await api("POST", `/api/subscriptions/${id}/pause`, { body: signed }), 401, "INVALID_SIGNATURE");
    errorOf(
      await api("POST", `/api/subscriptions/${id}/pause`, { body: { message: "hello", signature: "0x1234" } }),
      400,
      "VALIDATION_ERROR",
    );
    assert.equal((await detail(id)).subscription.status, "ACTIVE");

    errorOf(await act(p, 999_999_999, "pause"), 404, "SUBSCRIPTION_NOT_FOUND");
    errorOf(await api("GET", "/api/subscriptions/999999999"), 404, "SUBSCRIPTION_NOT_FOUND");
    errorOf(await api("GET", "/api/subscriptions/999999999/runs"), 404, "SUBSCRIPTION_NOT_FOUND");
    errorOf(await api("GET", `/api/subscriptions/${id}/runs?limit=0`), 400, "VALIDATION_ERROR");
    const own = await api("GET", `/api/subscriptions/${id}`);
    assert.equal(own.body.id, id, "the subscription's own shape");
    assert.equal(own.body.runs, undefined, "runs are on the sub-resource");
    errorOf(await api("GET", "/api/subscriptions/abc"), 400, "VALIDATION_ERROR");
    errorOf(await topup(p, id, 0n), 400, "VALIDATION_ERROR");
    await act(p, id, "cancel");
  });

  it("lists by poster and status, newest first, paginated", async () => {
    const p = await poster();
    const a = await create(p, "Task A daily for 3 days", PER_RUN * 3n);
    const b = await create(p, "Task B weekly for 2 weeks", PER_RUN * 2n);
    assert.equal(a.status, 201);
    assert.equal(b.status, 201);
    await act(p, a.body.subscription.id, "pause");

    const all = await api("GET", `/api/subscriptions?posterAddress=${p.address.toLowerCase()}`);
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 2);
    assert.deepEqual(
      all.body.subscriptions.map((s: { id: number }) => s.id),
      [b.body.subscription.id, a.body.subscription.id],
    );
    const paused = await api("GET", `/api/subscriptions?posterAddress=${p.address}&status=PAUSED`);
    assert.deepEqual(
      paused.body.subscriptions.map((s: { id: number }) => s.id),
      [a.body.subscription.id],
    );
    const page2 = await api("GET", `/api/subscriptions?posterAddress=${p.address}&limit=1&page=2`);
    assert.equal(page2.body.total, 2);
    assert.equal(page2.body.subscriptions.length, 1);
    assert.equal(page2.body.subscriptions[0].id, a.body.subscription.id);
    errorOf(await api("GET", "/api/subscriptions?status=DONE"), 400, "VALIDATION_ERROR");
    errorOf(await api("GET", "/api/subscriptions?limit=1000"), 400, "VALIDATION_ERROR");
    await act(p, a.body.subscription.id, "cancel");
    await act(p, b.body.subscription.id, "cancel");
  });
});

// Subscriptions on the real stack: real USDC transfers to the subscription account, SIWE-signed writes, the
// pg-boss scheduler creating runs on chain (RunEscrow.createSponsoredRun) as chain time advances.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import type { Address, Hex } from "viem";
import { faucet, signedAction } from "../support/agents.ts";
import { escrowRun, usdcBalance } from "../support/runs.ts";
import { api, db, deployments, increaseTime, newWallet, waitUntil } from "../support/stack.ts";

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

let account: Address | undefined;
async function paymentAddress(): Promise<Address> {
  if (!account) {
    const res = await api(
      "GET",
      `/api/subscriptions/parse-cadence?instructions=${encodeURIComponent("daily for 2 days x")}&rewardPerRun=10000`,
    );
    assert.equal(res.status, 200, JSON.stringify(res.body));
    account = res.body.paymentAddress as Address;
  }
  return account;
}

async function transfer(from: Wallet, amount: bigint, to?: Address): Promise<Hex> {
  const hash = await from.wallet.writeContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "transfer",
    args: [to ?? (await paymentAddress()), amount],
    chain: from.wallet.chain,
  });
  const { publicClient } = await import("../support/stack.ts");
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return hash;
}

async function create(p: Wallet, instructions: string, paid: bigint, reward = REWARD) {
  const txHash = await transfer(p, paid);
  const signed = await signedAction(p.key, "subscription-create", "subscription", "new");
  return api("POST", "/api/subscriptions", {
    body: { instructions, rewardPerRun: reward.toString(), posterAddress: p.address, txHash, ...signed },
  });
}

async function act(p: Wallet, id: number, action: "pause" | "resume" | "cancel", signer: Wallet = p) {
  const signed = await signedAction(signer.key, `subscription-${action}`, "subscription", id);
  return action === "cancel"
    ? api("DELETE", `/api/subscriptions/${id}`, { body: signed })
    : api("POST", `/api/subscriptions/${id}/${action}`, { body: signed });
}

async function topup(p: Wallet, id: number, amount: bigint, txHash?: Hex) {
  const hash = txHash ?? (await transfer(p, amount));
  const signed = await signedAction(p.key, "subscription-topup", "subscription", id);
  return api("POST", `/api/subscriptions/${id}/topup`, {
    body: { amount: amount.toString(), txHash: hash, ...signed },
  });
}

const detail = async (id: number) => {
  const res = await api("GET", `/api/subscriptions/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { subscription: Record<string, any>; runs: Record<string, any>[] };
};

/** Waits until the scheduler has created `n` runs of subscription `id` on chain. */
const runsCreated = (id: number, n: number) =>
  waitUntil(`subscription ${id}: ${n} runs on chain`, async () => {
    const d = await detail(id);
    return d.runs.length >= n && d.runs.every((r) => r.status === "CREATED") ? d : undefined;
  });

/** A few scheduler ticks (SUBSCRIPTION_INTERVAL_SECONDS=1 in the e2e stack). */
const ticks = () => new Promise((r) => setTimeout(r, 3_500));

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
    assert.match(res.body.paymentAddress, /^0x[0-9a-fA-F]{40}$/);
    assert.equal(res.body.limits.maxRuns, 366);
    assert.equal((await db.query("select count(*)::int n from api.subscription")).rows[0].n, before);
  });

  it("rejects bad cadences, limits, rewards and input with clear codes", async () => {
    const preview = (instructions: string, rewardPerRun = "1000000") =>
      api("GET", `/api/subscriptions/parse-cadence?${new URLSearchParams({ instructions, rewardPerRun })}`);
    const invalid = await preview("Summarize AI news");
    errorOf(invalid, 400, "INVALID_CADENCE");
    assert.match(invalid.body.error.message, /daily for 30 days/, "the message carries a hint");
    errorOf(await preview("Summarize AI news daily"), 400, "INVALID_CADENCE");
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
    const relayer = await paymentAddress();
    const posterBefore = await usdcBalance(p.address);
    const res = await create(p, "Write a haiku about the weather daily for 3 days", PER_RUN * 3n);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const { subscription: sub, detected, costs } = res.body;
    assert.equal(await usdcBalance(p.address), posterBefore - PER_RUN * 3n, "the poster paid the prepaid total");
    assert.equal(sub.status, "ACTIVE");
    assert.equal(sub.posterAddress, p.address);
    assert.equal(sub.cadence, "daily for 3 days");
    assert.equal(sub.totalRuns, 3);
    assert.equal(sub.rewardPerRun, REWARD.toString());
    assert.equal(sub.balanceRemaining, (PER_RUN * 3n).toString());
    assert.equal(detected.task, "Write a haiku about the weather");
    assert.equal(costs.total, (PER_RUN * 3n).toString());
    assert.equal(sub.nextRunAt, detected.startsAt);

    // First run: due at creation.
    const relayerBefore = await usdcBalance(relayer);
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
    assert.equal(await usdcBalance(relayer), relayerBefore - PER_RUN, "the subscription account paid the escrow");

    // The poster acts on it through the runs API as usual: cancelling refunds the poster's wallet.
    const posterMid = await usdcBalance(p.address);
    const cancelled = await api("POST", `/api/runs/${first.runs[0]!.bountyId}/cancel`, {
      body: await signedAction(p.key, "cancel-run", "run", first.runs[0]!.bountyId),
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
    const done = await runsCreated(id, 4);
    assert.equal(done.subscription.status, "COMPLETED");
    // The leftover of an overpayment is kept by the platform and recorded.
    assert.equal(done.subscription.balanceRemaining, "0");
    assert.equal(done.subscription.forfeited, "105");
  });

  it("pause stops creation, resume restarts it now, cancel forfeits the balance", async () => {
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

    const cancelled = await act(p, id, "cancel");
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
    assert.equal(cancelled.body.subscription.status, "CANCELLED");
    assert.equal(cancelled.body.forfeited, (PER_RUN * 3n).toString());
    assert.equal(cancelled.body.subscription.balanceRemaining, "0");
    assert.equal(cancelled.body.subscription.forfeited, (PER_RUN * 3n).toString());
    assert.equal(cancelled.body.subscription.nextRunAt, null);
    await increaseTime(DAY);
    await ticks();
    assert.equal((await detail(id)).runs.length, 2, "cancelled: no runs");
    errorOf(await act(p, id, "resume"), 409, "INVALID_SUBSCRIPTION_STATE");
    errorOf(await act(p, id, "cancel"), 409, "INVALID_SUBSCRIPTION_STATE");
    errorOf(await topup(p, id, PER_RUN), 409, "INVALID_SUBSCRIPTION_STATE");
  });
});

describe("subscriptions: payments, signatures and reads", () => {
  it("checks the USDC payment: amount, recipient, sender, existence, single use", async () => {
    const p = await poster();
    const instructions = "Translate the changelog weekly for 2 weeks";
    const signedCreate = () => signedAction(p.key, "subscription-create", "subscription", "new");
    const body = async (txHash: string, posterAddress: string = p.address) => ({
      instructions,
      rewardPerRun: REWARD.toString(),
      posterAddress,
      txHash,
      ...(await signedCreate()),
    });

    // Less than one run.
    errorOf(
      await api("POST", "/api/subscriptions", { body: await body(await transfer(p, PER_RUN - 1n)) }),
      400,
      "PAYMENT_MISMATCH",
    );
    // Paid to someone else.
    errorOf(
      await api("POST", "/api/subscriptions", {
        body: await body(await transfer(p, PER_RUN * 2n, newWallet().address)),
      }),
      400,
      "PAYMENT_MISMATCH",
    );
    // Paid by someone else: the signer is the poster, the transfer is not theirs.
    const other = await poster();
    errorOf(
      await api("POST", "/api/subscriptions", { body: await body(await transfer(other, PER_RUN * 2n)) }),
      400,
      "PAYMENT_MISMATCH",
    );
    errorOf(await api("POST", "/api/subscriptions", { body: await body(`0x${"ab".repeat(32)}`) }), 400, "TX_NOT_FOUND");

    const tx = await transfer(p, PER_RUN * 2n);
    const created = await api("POST", "/api/subscriptions", { body: await body(tx) });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.credited, (PER_RUN * 2n).toString());
    // The same transfer cannot fund anything again.
    errorOf(await api("POST", "/api/subscriptions", { body: await body(tx) }), 400, "TX_ALREADY_USED");
    errorOf(await topup(p, created.body.subscription.id, PER_RUN, tx), 400, "TX_ALREADY_USED");
    const count = await db.query("select count(*)::int n from api.subscription where poster_address = $1", [p.address]);
    assert.equal(count.rows[0].n, 1);
    await act(p, created.body.subscription.id, "cancel");
  });

  it("only the poster may act, with a fresh signature for that action and subscription", async () => {
    const p = await poster();
    const res = await create(p, "Review open pull requests daily for 10 days", PER_RUN * 10n);
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const id = res.body.subscription.id as number;
    const stranger = await poster();

    // create signed by someone else than posterAddress
    const tx = await transfer(p, PER_RUN);
    errorOf(
      await api("POST", "/api/subscriptions", {
        body: {
          instructions: "do x daily for 2 days",
          rewardPerRun: REWARD.toString(),
          posterAddress: p.address,
          txHash: tx,
          ...(await signedAction(stranger.key, "subscription-create", "subscription", "new")),
        },
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

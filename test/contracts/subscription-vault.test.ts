// SubscriptionVault: prepaid balances escrowed per subscriber, spent only on runs at the signed cadence and terms,
// refunded on cancel. Balances are checked to the base unit after every step, including what a relayer key tries
// beyond its bounds (runs ahead of the cadence, runs for another poster, forged or replayed consent).
import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { type Address, getAddress } from "viem";
import { CHAIN_ID, DAY, deployCore, feeOf, IPFS_URI, signPermit, wait } from "./fixtures.ts";

const { viem, networkHelpers } = await network.create();

const REWARD = 1_000_000n; // 1 USDC
const PER_RUN = REWARD + feeOf(REWARD);
const INTERVAL = DAY;
const Status = { None: 0, Active: 1, Paused: 2, Completed: 3, Cancelled: 4 } as const;

async function fixture() {
  const core = await networkHelpers.loadFixture(deployCore);
  const { escrow, usdc, publicClient, wallets } = core;
  const subs = await viem.deployContract("SubscriptionVault", [
    usdc.address,
    escrow.address,
    wallets.admin.account.address,
    wallets.relayer.account.address,
  ]);
  const SPONSOR = await escrow.read.SPONSOR_ROLE();
  await wait(publicClient, escrow.write.grantRole([SPONSOR, subs.address], { account: wallets.admin.account }));
  await wait(
    publicClient,
    subs.write.grantRole([await subs.read.PAUSER_ROLE(), wallets.admin.account.address], {
      account: wallets.admin.account,
    }),
  );
  const subscriber = wallets.poster;
  await wait(publicClient, usdc.write.mint([subscriber.account.address, 1_000n * REWARD]));
  return { ...core, subs, subscriber, SPONSOR };
}
type Fx = Awaited<ReturnType<typeof fixture>>;

interface Terms {
  subscriber: Address;
  rewardPerRun: bigint;
  interval: number;
  startsAt: number;
  totalRuns: number;
  runDuration: number;
  maxRevisions: number;
}

const now = async (fx: Fx) => (await fx.publicClient.getBlock()).timestamp;

async function termsOf(fx: Fx, over: Partial<Terms> = {}): Promise<Terms> {
  return {
    subscriber: fx.subscriber.account.address,
    rewardPerRun: REWARD,
    interval: Number(INTERVAL),
    startsAt: Number(await now(fx)),
    totalRuns: 0,
    runDuration: Number(DAY),
    maxRevisions: 2,
    ...over,
  };
}

/** The subscriber's two signatures: the Subscribe terms (vault domain) and the USDC permit for `amount`. */
async function consent(fx: Fx, terms: Terms, amount: bigint, signer = fx.subscriber) {
  const { subs } = fx;
  const deadline = (await now(fx)) + 3600n;
  const nonce = await subs.read.nonces([terms.subscriber]);
  const signature = await signer.signTypedData({
    account: signer.account,
    domain: { name: "AgentHub SubscriptionVault", version: "1", chainId: CHAIN_ID, verifyingContract: subs.address },
    types: {
      Subscribe: [
        { name: "subscriber", type: "address" },
        { name: "rewardPerRun", type: "uint96" },
        { name: "interval", type: "uint32" },
        { name: "startsAt", type: "uint48" },
        { name: "totalRuns", type: "uint32" },
        { name: "runDuration", type: "uint32" },
        { name: "maxRevisions", type: "uint8" },
        { name: "amount", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Subscribe",
    message: { ...terms, amount, nonce, deadline },
  });
  const permit = await permitFor(fx, amount, signer);
  return { deadline, signature, permit };
}

async function permitFor(fx: Fx, amount: bigint, signer = fx.subscriber) {
  const { subs, usdc } = fx;
  const deadline = (await now(fx)) + 3600n;
  return signPermit(usdc, signer, { spender: subs.address, value: amount, deadline });
}

/** The relayer opens a subscription from the subscriber's signatures; returns its id. */
async function openByRelayer(fx: Fx, terms: Terms, amount: bigint) {
  const c = await consent(fx, terms, amount);
  await wait(
    fx.publicClient,
    fx.subs.write.openWithPermit(
      [terms, amount, c.deadline, c.signature, c.permit.deadline, c.permit.v, c.permit.r, c.permit.s],
      { account: fx.wallets.relayer.account },
    ),
  );
  return fx.subs.read.subscriptionCount();
}

const trigger = (fx: Fx, id: bigint, account = fx.wallets.relayer.account) =>
  fx.subs.write.trigger([id, IPFS_URI], { account });

async function assertHeld(fx: Fx) {
  assert.equal(await fx.usdc.read.balanceOf([fx.subs.address]), await fx.subs.read.totalHeld(), "vault invariant");
  assert.equal(await fx.usdc.read.balanceOf([fx.escrow.address]), await fx.escrow.read.totalOwed(), "escrow invariant");
}

describe("SubscriptionVault", () => {
  it("opens from the subscriber's signed terms and permit; the relayer's own wallet never holds the money", async () => {
    const fx = await fixture();
    const { usdc, subs, subscriber, wallets } = fx;
    const who = subscriber.account.address;
    const before = await usdc.read.balanceOf([who]);
    const relayerBefore = await usdc.read.balanceOf([wallets.relayer.account.address]);
    const id = await openByRelayer(fx, await termsOf(fx), PER_RUN * 3n);
    assert.equal(await usdc.read.balanceOf([who]), before - PER_RUN * 3n);
    assert.equal(await usdc.read.balanceOf([subs.address]), PER_RUN * 3n);
    assert.equal(await usdc.read.balanceOf([wallets.relayer.account.address]), relayerBefore);
    const sub = await subs.read.getSubscription([id]);
    assert.equal(sub.subscriber, getAddress(who));
    assert.equal(sub.balance, PER_RUN * 3n);
    assert.equal(sub.status, Status.Active);
    assert.equal(sub.totalRuns, 0);
    assert.equal(await subs.read.costPerRun([id]), PER_RUN);
    await assertHeld(fx);
  });

  it("creates each run at the cadence for the subscriber, from the subscription's balance only", async () => {
    const fx = await fixture();
    const { usdc, subs, escrow, subscriber, publicClient } = fx;
    const id = await openByRelayer(fx, await termsOf(fx), PER_RUN * 3n);
    const rc = await wait(publicClient, trigger(fx, id));
    const runId = await escrow.read.runCount();
    const run = await escrow.read.getRun([runId]);
    const block = await publicClient.getBlock({ blockNumber: (rc as unknown as { blockNumber: bigint }).blockNumber });
    assert.equal(run.poster, getAddress(subscriber.account.address));
    assert.equal(run.reward, REWARD);
    assert.equal(run.maxRevisions, 2);
    assert.equal(run.deadline, block.timestamp + DAY);
    assert.equal(await subs.read.balanceOf([id]), PER_RUN * 2n);
    assert.equal(await usdc.read.balanceOf([escrow.address]), PER_RUN);
    // Beyond the cadence: nothing more until the next slot, whoever asks.
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "SubscriptionVaultNotDue");
    await viem.assertions.revertWithCustomError(trigger(fx, id, subscriber.account), subs, "SubscriptionVaultNotDue");
    await networkHelpers.time.increase(INTERVAL - 5n);
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "SubscriptionVaultNotDue");
    await networkHelpers.time.increase(5n);
    await wait(publicClient, trigger(fx, id));
    assert.equal(await subs.read.balanceOf([id]), PER_RUN);
    assert.equal((await subs.read.getSubscription([id])).runsCreated, 2);
    // The subscriber cancels a run in the escrow: the refund goes to the subscriber's wallet.
    const walletBefore = await usdc.read.balanceOf([subscriber.account.address]);
    await wait(publicClient, escrow.write.cancel([runId], { account: subscriber.account }));
    assert.equal(await usdc.read.balanceOf([subscriber.account.address]), walletBefore + PER_RUN);
    await assertHeld(fx);
  });

  it("after an outage catches up only the slots that elapsed", async () => {
    const fx = await fixture();
    const id = await openByRelayer(fx, await termsOf(fx), PER_RUN * 10n);
    await networkHelpers.time.increase(INTERVAL * 2n);
    for (let i = 0; i < 3; i++) await wait(fx.publicClient, trigger(fx, id)); // slots 0, 1 and 2
    await viem.assertions.revertWithCustomError(trigger(fx, id), fx.subs, "SubscriptionVaultNotDue");
    assert.equal(await fx.subs.read.balanceOf([id]), PER_RUN * 7n);
    await assertHeld(fx);
  });

  it("refuses the relayer key beyond its bounds: other posters, forged or replayed consent, strangers", async () => {
    const fx = await fixture();
    const { usdc, subs, escrow, subscriber, wallets, publicClient } = fx;
    const relayer = wallets.relayer.account;
    const id = await openByRelayer(fx, await termsOf(fx), PER_RUN * 2n);
    // The relayer cannot create a sponsored run itself, for anyone, even with its own money.
    await wait(publicClient, usdc.write.mint([relayer.address, PER_RUN], { account: relayer }));
    await wait(publicClient, usdc.write.approve([escrow.address, PER_RUN], { account: relayer }));
    const deadline = (await now(fx)) + DAY;
    await viem.assertions.revertWithCustomError(
      escrow.write.createSponsoredRun([wallets.other.account.address, REWARD, deadline, 2, IPFS_URI], {
        account: relayer,
      }),
      escrow,
      "AccessControlUnauthorizedAccount",
    );
    // Terms changed after signing (a bigger reward for a colluding agent): the signature does not match.
    const terms = await termsOf(fx);
    const c = await consent(fx, terms, PER_RUN);
    const args = [c.deadline, c.signature, c.permit.deadline, c.permit.v, c.permit.r, c.permit.s] as const;
    await viem.assertions.revertWithCustomError(
      subs.write.openWithPermit([{ ...terms, rewardPerRun: REWARD * 50n }, PER_RUN, ...args], { account: relayer }),
      subs,
      "SubscriptionVaultInvalidSignature",
    );
    await viem.assertions.revertWithCustomError(
      subs.write.openWithPermit([terms, PER_RUN * 2n, ...args], { account: relayer }),
      subs,
      "SubscriptionVaultInvalidSignature",
    );
    // Signed by someone else than the subscriber.
    const forged = await consent(fx, terms, PER_RUN, wallets.other);
    await viem.assertions.revertWithCustomError(
      subs.write.openWithPermit(
        [terms, PER_RUN, forged.deadline, forged.signature, c.permit.deadline, c.permit.v, c.permit.r, c.permit.s],
        { account: relayer },
      ),
      subs,
      "SubscriptionVaultInvalidSignature",
    );
    // Used once, then replayed.
    await wait(publicClient, subs.write.openWithPermit([terms, PER_RUN, ...args], { account: relayer }));
    await viem.assertions.revertWithCustomError(
      subs.write.openWithPermit([terms, PER_RUN, ...args], { account: relayer }),
      subs,
      "SubscriptionVaultInvalidSignature",
    );
    // Opening directly for someone else, and acting as a stranger.
    await viem.assertions.revertWithCustomError(
      subs.write.open([terms, PER_RUN], { account: relayer }),
      subs,
      "SubscriptionVaultUnauthorized",
    );
    const stranger = wallets.other.account;
    await viem.assertions.revertWithCustomError(trigger(fx, id, stranger), subs, "SubscriptionVaultUnauthorized");
    await viem.assertions.revertWithCustomError(
      subs.write.cancelSubscription([id], { account: stranger }),
      subs,
      "SubscriptionVaultUnauthorized",
    );
    // The relayer cancelling pays the subscriber, never itself.
    const relayerBefore = await usdc.read.balanceOf([relayer.address]);
    const subscriberBefore = await usdc.read.balanceOf([subscriber.account.address]);
    await wait(publicClient, subs.write.cancelSubscription([id], { account: relayer }));
    assert.equal(await usdc.read.balanceOf([relayer.address]), relayerBefore);
    assert.equal(await usdc.read.balanceOf([subscriber.account.address]), subscriberBefore + PER_RUN * 2n);
    await assertHeld(fx);
  });

  it("EXHAUSTED: no run without a full run's balance; a top-up starts again now, without a burst", async () => {
    const fx = await fixture();
    const { subs, publicClient, subscriber } = fx;
    const id = await openByRelayer(fx, await termsOf(fx), PER_RUN * 2n + 5n);
    await wait(publicClient, trigger(fx, id));
    await networkHelpers.time.increase(INTERVAL);
    await wait(publicClient, trigger(fx, id));
    assert.equal(await subs.read.balanceOf([id]), 5n);
    await networkHelpers.time.increase(INTERVAL * 3n);
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "SubscriptionVaultInsufficientBalance");
    // Top-up by permit (submitted by the relayer), enough for 3 runs.
    const p = await permitFor(fx, PER_RUN * 3n);
    await wait(
      publicClient,
      subs.write.topUpWithPermit([id, PER_RUN * 3n, p.deadline, p.v, p.r, p.s], {
        account: fx.wallets.relayer.account,
      }),
    );
    assert.equal(await subs.read.balanceOf([id]), PER_RUN * 3n + 5n);
    await wait(publicClient, trigger(fx, id));
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "SubscriptionVaultNotDue");
    // Anyone may top up from their own wallet; a stranger cannot spend the subscriber's permit.
    const q = await permitFor(fx, PER_RUN);
    await viem.assertions.revertWithCustomError(
      subs.write.topUpWithPermit([id, PER_RUN, q.deadline, q.v, q.r, q.s], { account: fx.wallets.other.account }),
      subs,
      "SubscriptionVaultUnauthorized",
    );
    await wait(publicClient, fx.usdc.write.approve([subs.address, 7n], { account: subscriber.account }));
    await wait(publicClient, subs.write.topUp([id, 7n], { account: subscriber.account }));
    assert.equal(await subs.read.balanceOf([id]), PER_RUN * 2n + 12n);
    await assertHeld(fx);
  });

  it("COMPLETED after the last run of a bounded schedule, with the leftover refunded", async () => {
    const fx = await fixture();
    const { subs, usdc, publicClient, subscriber } = fx;
    const id = await openByRelayer(fx, await termsOf(fx, { totalRuns: 2 }), PER_RUN * 2n + 7n);
    await wait(publicClient, trigger(fx, id));
    await networkHelpers.time.increase(INTERVAL);
    const before = await usdc.read.balanceOf([subscriber.account.address]);
    await wait(publicClient, trigger(fx, id));
    const sub = await subs.read.getSubscription([id]);
    assert.equal(sub.status, Status.Completed);
    assert.equal(sub.balance, 0n);
    assert.equal(await usdc.read.balanceOf([subscriber.account.address]), before + 7n);
    await networkHelpers.time.increase(INTERVAL);
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "SubscriptionVaultInvalidStatus");
    await viem.assertions.revertWithCustomError(
      subs.write.cancelSubscription([id], { account: subscriber.account }),
      subs,
      "SubscriptionVaultInvalidStatus",
    );
    assert.equal(await usdc.read.balanceOf([subs.address]), 0n);
    await assertHeld(fx);
  });

  it("paused creates nothing; resumed starts now; the subscriber cancels mid-period and gets the rest back", async () => {
    const fx = await fixture();
    const { subs, usdc, publicClient, subscriber } = fx;
    const id = await openByRelayer(fx, await termsOf(fx), PER_RUN * 5n);
    await wait(publicClient, trigger(fx, id));
    await wait(publicClient, subs.write.pauseSubscription([id], { account: subscriber.account }));
    await networkHelpers.time.increase(INTERVAL * 3n);
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "SubscriptionVaultInvalidStatus");
    await wait(publicClient, subs.write.resumeSubscription([id], { account: fx.wallets.relayer.account }));
    const resumedAt = await now(fx);
    assert.equal(BigInt((await subs.read.getSubscription([id])).nextRunAt), resumedAt);
    await wait(publicClient, trigger(fx, id));
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "SubscriptionVaultNotDue");
    // Mid-period: half an interval later the subscriber cancels directly.
    await networkHelpers.time.increase(INTERVAL / 2n);
    const before = await usdc.read.balanceOf([subscriber.account.address]);
    await wait(publicClient, subs.write.cancelSubscription([id], { account: subscriber.account }));
    assert.equal(await usdc.read.balanceOf([subscriber.account.address]), before + PER_RUN * 3n);
    assert.equal((await subs.read.getSubscription([id])).status, Status.Cancelled);
    await networkHelpers.time.increase(INTERVAL);
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "SubscriptionVaultInvalidStatus");
    await wait(publicClient, usdc.write.approve([subs.address, PER_RUN], { account: subscriber.account }));
    await viem.assertions.revertWithCustomError(
      subs.write.topUp([id, PER_RUN], { account: subscriber.account }),
      subs,
      "SubscriptionVaultInvalidStatus",
    );
    await assertHeld(fx);
  });

  it("first run waits for startsAt; terms out of bounds are refused", async () => {
    const fx = await fixture();
    const start = Number(await now(fx)) + 3600;
    const id = await openByRelayer(fx, await termsOf(fx, { startsAt: start }), PER_RUN);
    await viem.assertions.revertWithCustomError(trigger(fx, id), fx.subs, "SubscriptionVaultNotDue");
    await networkHelpers.time.increase(3600n);
    await wait(fx.publicClient, trigger(fx, id));
    for (const bad of [{ interval: 3599 }, { rewardPerRun: 0n }, { runDuration: 60 }]) {
      const terms = await termsOf(fx, bad);
      await assert.rejects(openByRelayer(fx, terms, PER_RUN), /SubscriptionVaultInvalidTerms/);
    }
  });

  it("follows the escrow's fee rate, and the emergency pause stops money moving", async () => {
    const fx = await fixture();
    const { subs, escrow, publicClient, wallets } = fx;
    const id = await openByRelayer(fx, await termsOf(fx), PER_RUN * 3n);
    await wait(publicClient, escrow.write.setFeeBps([1000n], { account: wallets.admin.account }));
    const cost = REWARD + feeOf(REWARD, 1000n);
    assert.equal(await subs.read.costPerRun([id]), cost);
    await wait(publicClient, trigger(fx, id));
    assert.equal(await subs.read.balanceOf([id]), PER_RUN * 3n - cost);
    await networkHelpers.time.increase(INTERVAL);
    await wait(publicClient, subs.write.pause({ account: wallets.admin.account }));
    await viem.assertions.revertWithCustomError(trigger(fx, id), subs, "EnforcedPause");
    await viem.assertions.revertWithCustomError(
      subs.write.cancelSubscription([id], { account: fx.subscriber.account }),
      subs,
      "EnforcedPause",
    );
    await viem.assertions.revertWithCustomError(
      subs.write.pause({ account: wallets.relayer.account }),
      subs,
      "AccessControlUnauthorizedAccount",
    );
    await wait(publicClient, subs.write.unpause({ account: wallets.admin.account }));
    await wait(publicClient, trigger(fx, id));
    await assertHeld(fx);
  });
});

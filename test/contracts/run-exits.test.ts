/**
 * Escrow exits (issue 23, items 4 and 9): a silent poster or a silent arbiter cannot lock a run the agent holds, and
 * a run has a minimum reward. Each test failed on the escrow before the exits existed. Balances to the base unit.
 */
import assert from "node:assert/strict";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";
import { describe, it } from "mocha";
import { getAddress, type Hex, parseEventLogs } from "viem";
import {
  bytes32,
  createFundedRun,
  DAY,
  deployCore,
  feeOf,
  MIN_STAKE,
  mintAgent,
  signConsent,
  stakeAgent,
  wait,
} from "./fixtures.ts";

const { networkHelpers } = await network.create();

const REWARD = 5_000_000n;
const FEE = feeOf(REWARD);
const REVIEW = 7n * DAY;
const DISPUTE = 14n * DAY;
const State = { Submitted: 4, RevisionRequested: 5, Disputed: 6, Completed: 7, DisputeExpired: 11 } as const;

async function fixture(conn: NetworkConnection) {
  const core = await deployCore(conn);
  const { agentOwner } = core.wallets;
  const agent = await mintAgent(core, agentOwner.account.address);
  await stakeAgent(core, agent, agentOwner.account.address, MIN_STAKE);
  return { ...core, agent };
}
type Fx = Awaited<ReturnType<typeof fixture>>;

/** A run of REWARD posted by `poster`, claimed and submitted by the agent; returns its id. */
async function submittedRun(fx: Fx, maxRevisions = 1) {
  const { escrow, publicClient, wallets, agent } = fx;
  const runId = await createFundedRun(fx, wallets.poster.account.address, REWARD, { maxRevisions });
  await wait(publicClient, escrow.write.claim([runId, agent], { account: wallets.agentOwner.account }));
  await wait(publicClient, escrow.write.submit([runId, bytes32("work")], { account: wallets.agentOwner.account }));
  return runId;
}

/** The named escrow events a transaction emitted (the transaction must succeed). */
async function eventsOf<E extends "DisputeExpired" | "WindowsUpdated" | "MinRewardUpdated">(
  fx: Fx,
  tx: Promise<Hex>,
  eventName: E,
) {
  const receipt = await fx.publicClient.waitForTransactionReceipt({ hash: await tx });
  assert.equal(receipt.status, "success");
  return parseEventLogs({ abi: fx.escrow.abi, logs: receipt.logs, eventName });
}

const errorOf = async (p: Promise<unknown>, name: string) =>
  assert.rejects(p, (e: Error) => {
    assert.ok(e.message.includes(name), `expected ${name}, got ${e.message.split("\n")[0]}`);
    return true;
  });

describe("RunEscrow exits: review window (a silent poster)", () => {
  it("after the review window a stranger releases the run: the agent is credited exactly as an approval credits it", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, vault, usdc, publicClient, wallets, agent } = fx;
    assert.deepEqual(await escrow.read.windows(), [REVIEW, DISPUTE]);
    const runId = await submittedRun(fx);
    const since = (await escrow.read.getRun([runId])).since;
    assert.equal(await vault.read.locksOf([agent]), 1n);

    await networkHelpers.time.setNextBlockTimestamp(since + REVIEW - 1n);
    await errorOf(
      escrow.write.releaseAfterReview([runId], { account: wallets.other.account }),
      "RunEscrowTimeoutNotReached",
    );

    const feesBefore = await escrow.read.feesAccrued();
    await networkHelpers.time.setNextBlockTimestamp(since + REVIEW);
    const release = escrow.write.releaseAfterReview([runId], { account: wallets.other.account });
    const receipt = await publicClient.waitForTransactionReceipt({ hash: await release });
    const released = parseEventLogs({ abi: escrow.abi, logs: receipt.logs, eventName: "RunReleasedAfterReview" });
    assert.equal(released.length, 1);
    assert.deepEqual(released[0]!.args, { runId, agentId: agent, by: getAddress(wallets.other.account.address) });
    const completed = parseEventLogs({ abi: escrow.abi, logs: receipt.logs, eventName: "RunCompleted" });
    assert.deepEqual(completed[0]!.args, { runId, agentId: agent, reward: REWARD, fee: FEE });

    assert.equal((await escrow.read.getRun([runId])).state, State.Completed);
    assert.equal(await escrow.read.rewardsOf([agent]), REWARD);
    assert.equal(await escrow.read.feesAccrued(), feesBefore + FEE);
    assert.equal(await vault.read.locksOf([agent]), 0n, "the agent's stake is free again");
    const ownerBefore = await usdc.read.balanceOf([wallets.agentOwner.account.address]);
    await wait(publicClient, escrow.write.payRewards([[agent]], { account: wallets.other.account }));
    assert.equal(await usdc.read.balanceOf([wallets.agentOwner.account.address]), ownerBefore + REWARD);
    assert.equal(await usdc.read.balanceOf([escrow.address]), await escrow.read.totalOwed());
  });

  it("within the window the poster still decides; after it the poster can approve but not turn the work down", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, publicClient, wallets } = fx;
    const runId = await submittedRun(fx);
    const since = (await escrow.read.getRun([runId])).since;
    await networkHelpers.time.setNextBlockTimestamp(since + REVIEW);
    const poster = { account: wallets.poster.account };
    await errorOf(escrow.write.requestRevision([runId], poster), "RunEscrowReviewWindowOver");
    await errorOf(escrow.write.dispute([runId], poster), "RunEscrowReviewWindowOver");
    const consent = await signConsent(fx, wallets.poster, "requestRevision", runId, { deadline: since + REVIEW + DAY });
    await errorOf(
      escrow.write.requestRevisionBySig([runId, consent], { account: wallets.relayer.account }),
      "RunEscrowReviewWindowOver",
    );
    await wait(publicClient, escrow.write.approve([runId], poster));
    assert.equal((await escrow.read.getRun([runId])).state, State.Completed);
  });

  it("a poster with no revisions left cannot reject after the window", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, wallets } = fx;
    const runId = await submittedRun(fx, 0);
    const since = (await escrow.read.getRun([runId])).since;
    await networkHelpers.time.setNextBlockTimestamp(since + REVIEW);
    await errorOf(escrow.write.reject([runId], { account: wallets.poster.account }), "RunEscrowReviewWindowOver");
  });

  it("a revision request restarts nothing for the poster: the agent's resubmission opens a new window", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, publicClient, wallets } = fx;
    const runId = await submittedRun(fx);
    await wait(publicClient, escrow.write.requestRevision([runId], { account: wallets.poster.account }));
    await errorOf(escrow.write.releaseAfterReview([runId]), "RunEscrowInvalidState");
    await networkHelpers.time.increase(3n * DAY);
    await wait(publicClient, escrow.write.submit([runId, bytes32("v2")], { account: wallets.agentOwner.account }));
    const since = (await escrow.read.getRun([runId])).since;
    await networkHelpers.time.setNextBlockTimestamp(since + REVIEW - 1n);
    await errorOf(escrow.write.releaseAfterReview([runId]), "RunEscrowTimeoutNotReached");
    await networkHelpers.time.setNextBlockTimestamp(since + REVIEW);
    await wait(publicClient, escrow.write.releaseAfterReview([runId]));
  });

  it("a pause holds the release (it credits money) and lifting it lets it through", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, publicClient, wallets } = fx;
    const runId = await submittedRun(fx);
    await networkHelpers.time.increase(REVIEW);
    await wait(publicClient, escrow.write.pause({ account: wallets.admin.account }));
    await errorOf(escrow.write.releaseAfterReview([runId]), "EnforcedPause");
    await wait(publicClient, escrow.write.unpause({ account: wallets.admin.account }));
    await wait(publicClient, escrow.write.releaseAfterReview([runId]));
  });
});

describe("RunEscrow exits: dispute window (a silent arbiter)", () => {
  it("an unresolved dispute ends by its default after the window: reward + fee back to the poster, no slash, no failure", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, vault, usdc, publicClient, wallets, agent } = fx;
    const runId = await submittedRun(fx);
    await wait(publicClient, escrow.write.dispute([runId], { account: wallets.poster.account }));
    const since = (await escrow.read.getRun([runId])).since;
    const stakeBefore = await vault.read.stakeOf([agent]);
    const posterBefore = await usdc.read.balanceOf([wallets.poster.account.address]);

    await networkHelpers.time.setNextBlockTimestamp(since + DISPUTE - 1n);
    await errorOf(
      escrow.write.expireDispute([runId], { account: wallets.other.account }),
      "RunEscrowTimeoutNotReached",
    );
    await networkHelpers.time.setNextBlockTimestamp(since + DISPUTE);
    // The arbiter's time is over too: the outcome cannot race the default.
    await errorOf(
      escrow.write.resolve([runId, false], { account: wallets.admin.account }),
      "RunEscrowDisputeWindowOver",
    );
    await networkHelpers.time.setNextBlockTimestamp(since + DISPUTE + 1n);
    const events = await eventsOf(
      fx,
      escrow.write.expireDispute([runId], { account: wallets.other.account }),
      "DisputeExpired",
    );
    assert.deepEqual(events[0]!.args, {
      runId,
      agentId: agent,
      by: getAddress(wallets.other.account.address),
      refunded: REWARD + FEE,
    });

    assert.equal((await escrow.read.getRun([runId])).state, State.DisputeExpired);
    assert.equal(await usdc.read.balanceOf([wallets.poster.account.address]), posterBefore + REWARD + FEE);
    assert.equal(await vault.read.stakeOf([agent]), stakeBefore, "no slash");
    assert.equal(await vault.read.locksOf([agent]), 0n);
    assert.deepEqual(await escrow.read.failureOf([runId]), [0n, 0, 0n], "no failure recorded");
    assert.equal(await escrow.read.lastVerifiedFailureAt([agent]), 0n);
    assert.equal(await usdc.read.balanceOf([escrow.address]), await escrow.read.totalOwed());
    assert.equal(await escrow.read.totalOwed(), 0n);
  });

  it("within the window the arbiter resolves as before", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, publicClient, wallets, agent } = fx;
    const runId = await submittedRun(fx);
    await wait(publicClient, escrow.write.dispute([runId], { account: wallets.agentOwner.account }));
    await networkHelpers.time.increase(DISPUTE - 10n);
    await wait(publicClient, escrow.write.resolve([runId, true], { account: wallets.admin.account }));
    assert.equal(await escrow.read.rewardsOf([agent]), REWARD);
    await errorOf(escrow.write.expireDispute([runId]), "RunEscrowInvalidState");
  });
});

describe("RunEscrow parameters: windows and minimum reward (governance)", () => {
  it("only the admin sets them, within bounds, with an event", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, wallets } = fx;
    const admin = { account: wallets.admin.account };
    await errorOf(
      escrow.write.setWindows([DAY, 3n * DAY], { account: wallets.relayer.account }),
      "AccessControlUnauthorizedAccount",
    );
    await errorOf(
      escrow.write.setMinReward([1n], { account: wallets.relayer.account }),
      "AccessControlUnauthorizedAccount",
    );
    await errorOf(escrow.write.setWindows([DAY - 1n, 3n * DAY], admin), "RunEscrowInvalidWindows");
    await errorOf(escrow.write.setWindows([30n * DAY + 1n, 3n * DAY], admin), "RunEscrowInvalidWindows");
    await errorOf(escrow.write.setWindows([DAY, 3n * DAY - 1n], admin), "RunEscrowInvalidWindows");
    await errorOf(escrow.write.setWindows([DAY, 90n * DAY + 1n], admin), "RunEscrowInvalidWindows");
    await errorOf(escrow.write.setMinReward([500_010_000n], admin), "RunEscrowInvalidMinReward");
    await errorOf(escrow.write.setMinReward([15_000n], admin), "RunEscrowInvalidMinReward");
    assert.deepEqual((await eventsOf(fx, escrow.write.setWindows([DAY, 3n * DAY], admin), "WindowsUpdated"))[0]!.args, {
      review: DAY,
      dispute: 3n * DAY,
    });
    assert.deepEqual(
      (await eventsOf(fx, escrow.write.setMinReward([1_000_000n], admin), "MinRewardUpdated"))[0]!.args,
      {
        amount: 1_000_000n,
      },
    );
    assert.deepEqual(await escrow.read.windows(), [DAY, 3n * DAY]);
    assert.equal(await escrow.read.minReward(), 1_000_000n);
  });

  it("a run below the minimum reward is refused (0.01 USDC at deployment), at the minimum accepted", async () => {
    const fx = await networkHelpers.loadFixture(fixture);
    const { escrow, usdc, publicClient, wallets } = fx;
    assert.equal(await escrow.read.minReward(), 10_000n);
    const poster = wallets.poster.account;
    await wait(publicClient, usdc.write.mint([poster.address, 1_000_000n]));
    await wait(publicClient, usdc.write.approve([escrow.address, 1_000_000n], { account: poster }));
    const deadline = (await publicClient.getBlock()).timestamp + DAY;
    await errorOf(
      escrow.write.createRun([9_999n, deadline, 0, 0n, "ipfs://x"], { account: poster }),
      "RunEscrowRewardTooLow",
    );
    const before = await usdc.read.balanceOf([poster.address]);
    await wait(publicClient, escrow.write.createRun([10_000n, deadline, 0, 0n, "ipfs://x"], { account: poster }));
    assert.equal(await usdc.read.balanceOf([poster.address]), before - 10_000n - feeOf(10_000n));
  });
});

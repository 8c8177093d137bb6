import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { encodeFunctionData, getAddress, zeroAddress, zeroHash } from "viem";
import {
  bytes32,
  createFundedRun,
  DAY,
  deployCore,
  feeOf,
  IPFS_URI,
  MIN_STAKE,
  mintAgent,
  signConsent,
  stakeAgent,
  wait,
} from "./fixtures.ts";

const { viem, networkHelpers } = await network.create();

const State = {
  None: 0,
  Open: 1,
  Claimed: 2,
  InProgress: 3,
  Submitted: 4,
  RevisionRequested: 5,
  Disputed: 6,
  Completed: 7,
  Rejected: 8,
  Cancelled: 9,
  TimedOut: 10,
} as const;

const REWARD = 100_000_000n; // 100 USDC
const FEE = feeOf(REWARD); // 5 USDC

/** Core + one staked agent (owned by agentOwner) + one open run (posted by poster, 1 revision). */
async function fixture() {
  const core = await networkHelpers.loadFixture(deployCore);
  const { wallets } = core;
  const agentId = await mintAgent(core, wallets.agentOwner.account.address);
  await stakeAgent(core, agentId, wallets.agentOwner.account.address, MIN_STAKE * 2n);
  const runId = await createFundedRun(core, wallets.poster.account.address, REWARD, { maxRevisions: 1 });
  const run = await core.escrow.read.getRun([runId]);
  return { ...core, agentId, runId, deadline: run.deadline, poster: wallets.poster, agent: wallets.agentOwner };
}
type Fx = Awaited<ReturnType<typeof fixture>>;

async function toSubmitted(fx: Fx) {
  const { escrow, runId, agentId, agent, publicClient } = fx;
  await wait(publicClient, escrow.write.claim([runId, agentId], { account: agent.account }));
  await wait(publicClient, escrow.write.submit([runId, bytes32("deliverable")], { account: agent.account }));
}

async function toDisputed(fx: Fx) {
  await toSubmitted(fx);
  await wait(fx.publicClient, fx.escrow.write.dispute([fx.runId], { account: fx.poster.account }));
}

async function assertBalanced(fx: Fx) {
  const owed = await fx.escrow.read.totalOwed();
  assert.equal(await fx.usdc.read.balanceOf([fx.escrow.address]), owed, "escrow balance == totalOwed");
  assert.equal(await fx.usdc.read.balanceOf([fx.vault.address]), await fx.vault.read.totalStaked());
}

describe("RunEscrow", () => {
  describe("setup", () => {
    it("exposes constants, roles and defaults", async () => {
      const { escrow, roles, wallets, usdc, vault, identity } = await fixture();
      assert.equal(await escrow.read.feeBps(), 500n);
      assert.equal(await escrow.read.claimTimeout(), 7n * DAY);
      assert.equal(await escrow.read.slashBps(), 5000n);
      assert.equal(await escrow.read.treasury(), getAddress(wallets.treasury.account.address));
      assert.equal(await escrow.read.usdc(), getAddress(usdc.address));
      assert.equal(await escrow.read.vault(), getAddress(vault.address));
      assert.equal(await escrow.read.identity(), getAddress(identity.address));
      assert.equal(await escrow.read.hasRole([roles.ADMIN, wallets.admin.account.address]), true);
      assert.equal(await escrow.read.hasRole([roles.ARBITER, wallets.admin.account.address]), true);
      assert.equal(await escrow.read.hasRole([roles.ESCROW_RELAYER, wallets.relayer.account.address]), true);
    });

    it("rejects zero addresses at construction", async () => {
      const { usdc, vault, identity, escrow, wallets } = await fixture();
      const a = wallets.admin.account.address;
      const good = [usdc.address, vault.address, identity.address, a, a, a] as const;
      for (let i = 0; i < good.length; i++) {
        const args = [...good] as [(typeof good)[0], (typeof good)[1], (typeof good)[2], typeof a, typeof a, typeof a];
        (args as any)[i] = zeroAddress;
        await viem.assertions.revertWithCustomError(
          viem.deployContract("RunEscrow", args),
          escrow,
          "RunEscrowZeroAddress",
        );
      }
    });
  });

  describe("createRun", () => {
    it("pulls reward + 5% fee and records the run; metadataUri only in the event", async () => {
      const core = await networkHelpers.loadFixture(deployCore);
      const { escrow, usdc, wallets, publicClient } = core;
      const poster = wallets.poster;
      await usdc.write.mint([poster.account.address, REWARD + FEE]);
      await usdc.write.approve([escrow.address, REWARD + FEE], { account: poster.account });
      const deadline = (await publicClient.getBlock()).timestamp + 3n * DAY;
      const tx = escrow.write.createRun([REWARD, deadline, 2, 0n, IPFS_URI], {
        account: poster.account,
      });
      await viem.assertions.emitWithArgs(tx, escrow, "RunCreated", [
        1n,
        poster.account.address,
        REWARD,
        deadline,
        2,
        IPFS_URI,
      ]);
      await viem.assertions.emitWithArgs(tx, usdc, "Transfer", [poster.account.address, escrow.address, REWARD + FEE]);
      assert.equal(await escrow.read.runCount(), 1n);
      assert.equal(await escrow.read.totalOwed(), REWARD + FEE);
      assert.deepEqual(await escrow.read.getRun([1n]), {
        poster: getAddress(poster.account.address),
        deadline,
        maxRevisions: 2,
        revisions: 0,
        state: State.Open,
        reward: REWARD,
        fee: FEE,
        agentId: 0n,
        claimedAt: 0n,
        deliverableHash: zeroHash,
        since: 0n,
      });
      assert.equal(await usdc.read.balanceOf([escrow.address]), REWARD + FEE);
    });

    it("the caller is the poster: nobody spends another account's allowance; rejects zero reward, past deadline, zero poster", async () => {
      const fx = await fixture();
      const { escrow, usdc, wallets, poster, deadline } = fx;
      await usdc.write.mint([poster.account.address, 10n * REWARD]);
      await usdc.write.approve([escrow.address, 10n * REWARD], { account: poster.account });
      // The relayer or a stranger can only fund a run of its own, from its own allowance (none here).
      for (const caller of [wallets.relayer, wallets.other]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          escrow.write.createRun([REWARD, deadline, 0, 0n, ""], { account: caller.account }),
          usdc,
          "ERC20InsufficientAllowance",
          [getAddress(escrow.address), 0n, REWARD + FEE],
        );
      }
      assert.equal(await usdc.read.allowance([poster.account.address, escrow.address]), 10n * REWARD);
      await escrow.write.createRun([REWARD, deadline, 0, 0n, ""], { account: poster.account });
      assert.equal((await escrow.read.getRun([2n])).poster, getAddress(poster.account.address));
      await viem.assertions.revertWithCustomError(
        escrow.write.createRun([0n, deadline, 0, 0n, ""], { account: poster.account }),
        escrow,
        "RunEscrowZeroReward",
      );
      const now = (await fx.publicClient.getBlock()).timestamp;
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.createRun([REWARD, now, 0, 0n, ""], { account: poster.account }),
        escrow,
        "RunEscrowDeadlinePassed",
        [3n],
      );
      await viem.assertions.revertWithCustomError(
        escrow.write.createRunWithAuthorization([zeroAddress, REWARD, deadline, 0, 0n, "", deadline, "0x"], {
          account: wallets.relayer.account,
        }),
        escrow,
        "RunEscrowZeroAddress",
      );
    });

    it("refuses a reward above the 96 bits a run stores it in and a deadline above 48 bits", async () => {
      const { escrow, poster, deadline } = await fixture();
      // The cast is of the new total owed (the fixture's run plus this one), which includes the reward.
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.createRun([2n ** 96n, deadline, 0, 0n, ""], { account: poster.account }),
        escrow,
        "SafeCastOverflowedUintDowncast",
        [96, REWARD + FEE + 2n ** 96n + feeOf(2n ** 96n)],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.createRun([REWARD, 2n ** 48n, 0, 0n, ""], { account: poster.account }),
        escrow,
        "SafeCastOverflowedUintDowncast",
        [48, 2n ** 48n],
      );
      assert.equal(await escrow.read.runCount(), 1n);
    });

    it("the cover is a term fixed at funding: at most maxCoverBps of the reward (governance), never changed after", async () => {
      const core = await networkHelpers.loadFixture(deployCore);
      const { escrow, usdc, wallets, publicClient } = core;
      const poster = wallets.poster2;
      await usdc.write.mint([poster.account.address, 10n * REWARD]);
      await usdc.write.approve([escrow.address, 10n * REWARD], { account: poster.account });
      const now = (await publicClient.getBlock()).timestamp;
      const as = { account: poster.account };
      // Ten times the reward at deployment: a poster cannot name damages of 400 times a run's value.
      assert.equal(await escrow.read.maxCoverBps(), 100_000n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.createRun([REWARD, now + DAY, 1, 10n * REWARD + 1n, IPFS_URI], as),
        escrow,
        "RunEscrowCoverTooHigh",
        [10n * REWARD + 1n, 10n * REWARD],
      );
      await viem.assertions.emitWithArgs(
        escrow.write.createRun([REWARD, now + DAY, 1, 10n * REWARD, IPFS_URI], as),
        escrow,
        "RunCoverSet",
        [1n, getAddress(poster.account.address), 10n * REWARD],
      );
      assert.equal(await escrow.read.coverOf([1n]), 10n * REWARD);
      // Only governance moves the bound (0..100 times the reward); runs funded before keep their cover.
      await viem.assertions.revertWithCustomError(
        escrow.write.setMaxCoverBps([200_000n], as),
        escrow,
        "AccessControlUnauthorizedAccount",
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.setMaxCoverBps([1_000_001n], { account: wallets.admin.account }),
        escrow,
        "RunEscrowInvalidBps",
        [1_000_001n],
      );
      await viem.assertions.emitWithArgs(
        escrow.write.setMaxCoverBps([20_000n], { account: wallets.admin.account }),
        escrow,
        "MaxCoverBpsUpdated",
        [20_000n],
      );
      assert.equal(await escrow.read.coverOf([1n]), 10n * REWARD);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.createRun([REWARD, now + DAY, 1, 3n * REWARD, IPFS_URI], as),
        escrow,
        "RunEscrowCoverTooHigh",
        [3n * REWARD, 2n * REWARD],
      );
      // No cover: nothing stored, no event beyond RunCreated.
      await wait(publicClient, escrow.write.createRun([REWARD, now + DAY, 1, 0n, IPFS_URI], as));
      assert.equal(await escrow.read.coverOf([2n]), 0n);
      // Nothing in the escrow sets a run's cover after funding (the pool only reads coverOf).
      const writers = escrow.abi.filter(
        (f) => f.type === "function" && /cover/i.test(f.name) && f.stateMutability === "nonpayable",
      ) as { name: string }[];
      assert.deepEqual(
        writers.map((f) => f.name),
        ["setMaxCoverBps"],
      );
    });

    it("rounds the fee up (reward 19 -> fee 1) and accrues it on completion", async () => {
      const fx = await fixture();
      const { escrow, usdc, wallets, agentId, agent, poster } = fx;
      // Below the minimum reward at deployment (0.01 USDC): governance lowered it.
      await escrow.write.setMinReward([0n], { account: wallets.admin.account });
      const runId = await createFundedRun(fx, poster.account.address, 19n);
      assert.equal((await escrow.read.getRun([runId])).fee, 1n);
      await escrow.write.claim([runId, agentId], { account: agent.account });
      await escrow.write.submit([runId, bytes32("x")], { account: agent.account });
      const before = await usdc.read.balanceOf([wallets.treasury.account.address]);
      await escrow.write.approve([runId], { account: poster.account });
      assert.equal(await usdc.read.balanceOf([wallets.treasury.account.address]), before, "not sent yet");
      assert.equal(await escrow.read.feesAccrued(), 1n);
      await escrow.write.sweepFees();
      assert.equal(await usdc.read.balanceOf([wallets.treasury.account.address]), before + 1n);
      await assertBalanced(fx);
    });
  });

  describe("claim / start / submit", () => {
    it("happy path with events and stored fields", async () => {
      const fx = await fixture();
      const { escrow, runId, agentId, agent, publicClient } = fx;
      await viem.assertions.emitWithArgs(
        escrow.write.claim([runId, agentId], { account: agent.account }),
        escrow,
        "RunClaimed",
        [runId, agentId],
      );
      const { timestamp } = await publicClient.getBlock();
      let run = await escrow.read.getRun([runId]);
      assert.equal(run.state, State.Claimed);
      assert.equal(run.agentId, agentId);
      assert.equal(run.claimedAt, timestamp);
      await viem.assertions.emitWithArgs(
        escrow.write.start([runId], { account: agent.account }),
        escrow,
        "RunStarted",
        [runId, agentId],
      );
      assert.equal((await escrow.read.getRun([runId])).state, State.InProgress);
      const h = bytes32("result");
      await viem.assertions.emitWithArgs(
        escrow.write.submit([runId, h], { account: agent.account }),
        escrow,
        "RunSubmitted",
        [runId, agentId, h],
      );
      run = await escrow.read.getRun([runId]);
      assert.equal(run.state, State.Submitted);
      assert.equal(run.deliverableHash, h);
    });

    it("the relayer acts for the agent only with its owner's consent; submit works straight from Claimed", async () => {
      const fx = await fixture();
      const { escrow, runId, agentId, agent, wallets } = fx;
      const as = { account: wallets.relayer.account };
      const relayer: [`0x${string}`] = [getAddress(wallets.relayer.account.address)];
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([runId, agentId], as),
        escrow,
        "RunEscrowUnauthorized",
        relayer,
      );
      await escrow.write.claimBySig([runId, agentId, await signConsent(fx, agent, "claim", runId, { agentId })], as);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.submit([runId, bytes32("r")], as),
        escrow,
        "RunEscrowUnauthorized",
        relayer,
      );
      const h = bytes32("r");
      await viem.assertions.emitWithArgs(
        escrow.write.submitBySig([runId, h, await signConsent(fx, agent, "submit", runId, { deliverableHash: h })], as),
        escrow,
        "RunSubmitted",
        [runId, agentId, h],
      );
      assert.equal((await escrow.read.getRun([runId])).state, State.Submitted);
    });

    it("claim: rejects unknown runs, wrong state, strangers, passed deadlines and thin stakes", async () => {
      const fx = await fixture();
      const { escrow, vault, runId, agentId, agent, wallets, deadline } = fx;
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([99n, agentId], { account: agent.account }),
        escrow,
        "RunEscrowUnknownRun",
        [99n],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([runId, agentId], { account: wallets.other.account }),
        escrow,
        "RunEscrowUnauthorized",
        [getAddress(wallets.other.account.address)],
      );
      // Unstaked agent: the vault refuses the lock.
      const poorAgent = await mintAgent(fx, wallets.other.account.address);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([runId, poorAgent], { account: wallets.other.account }),
        vault,
        "StakeVaultInsufficientStake",
        [poorAgent, 0n, MIN_STAKE],
      );
      // A pending withdrawal no longer backs claims.
      await vault.write.requestWithdrawal([agentId, MIN_STAKE + 1n], { account: agent.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([runId, agentId], { account: agent.account }),
        vault,
        "StakeVaultInsufficientStake",
        [agentId, MIN_STAKE - 1n, MIN_STAKE],
      );
      const staked = await mintAgent(fx, wallets.agentOwner2.account.address);
      await stakeAgent(fx, staked, wallets.agentOwner2.account.address);
      await networkHelpers.time.increaseTo(deadline + 1n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([runId, staked], { account: wallets.agentOwner2.account }),
        escrow,
        "RunEscrowDeadlinePassed",
        [runId],
      );
      // Exactly at the deadline is still fine (fresh run).
      const run2 = await createFundedRun(fx, fx.poster.account.address, REWARD, { deadline: deadline + 100n });
      await networkHelpers.time.setNextBlockTimestamp(deadline + 100n);
      await escrow.write.claim([run2, staked], { account: wallets.agentOwner2.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([run2, staked], { account: wallets.agentOwner2.account }),
        escrow,
        "RunEscrowInvalidState",
        [run2, State.Claimed],
      );
    });

    it("start / submit: only the agent side, only from the right states", async () => {
      const fx = await fixture();
      const { escrow, runId, agentId, agent, wallets, poster } = fx;
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.start([runId], { account: agent.account }),
        escrow,
        "RunEscrowInvalidState",
        [runId, State.Open],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.submit([runId, bytes32("x")], { account: agent.account }),
        escrow,
        "RunEscrowInvalidState",
        [runId, State.Open],
      );
      await escrow.write.claim([runId, agentId], { account: agent.account });
      for (const who of [poster, wallets.other]) {
        await viem.assertions.revertWithCustomError(
          escrow.write.start([runId], { account: who.account }),
          escrow,
          "RunEscrowUnauthorized",
        );
        await viem.assertions.revertWithCustomError(
          escrow.write.submit([runId, bytes32("x")], { account: who.account }),
          escrow,
          "RunEscrowUnauthorized",
        );
      }
      await escrow.write.start([runId], { account: agent.account });
      await viem.assertions.revertWithCustomError(
        escrow.write.start([runId], { account: agent.account }),
        escrow,
        "RunEscrowInvalidState",
      );
    });
  });

  describe("approve / requestRevision / reject", () => {
    it("approve adds the reward to the agent's rewards, paid to the token's owner at payout, and accrues the fee", async () => {
      const fx = await fixture();
      const { escrow, usdc, identity, runId, agentId, agent, poster, wallets } = fx;
      await toSubmitted(fx);
      const tx = escrow.write.approve([runId], { account: poster.account });
      await viem.assertions.emitWithArgs(tx, escrow, "RunCompleted", [runId, agentId, REWARD, FEE]);
      assert.equal(await escrow.read.rewardsOf([agentId]), REWARD);
      assert.equal(await escrow.read.liveRunsOf([agentId]), 0n);
      assert.equal(await escrow.read.totalOwed(), REWARD + FEE, "the reward and the fee are still owed");
      await assertBalanced(fx);
      // The agent changes hands before the payout: the rewards go with the token, to its owner when paid.
      await identity.write.transferFrom([agent.account.address, wallets.poster2.account.address, agentId], {
        account: agent.account,
      });
      const pay = escrow.write.payRewards([[agentId]], { account: wallets.other.account });
      await viem.assertions.emitWithArgs(pay, escrow, "RewardsPaid", [
        agentId,
        getAddress(wallets.poster2.account.address),
        REWARD,
      ]);
      assert.equal(await usdc.read.balanceOf([wallets.poster2.account.address]), REWARD);
      assert.equal(await usdc.read.balanceOf([agent.account.address]), 0n);
      assert.equal(await escrow.read.rewardsOf([agentId]), 0n);
      assert.equal(await usdc.read.balanceOf([wallets.treasury.account.address]), 0n);
      assert.equal((await escrow.read.getRun([runId])).state, State.Completed);
      assert.equal(await escrow.read.totalOwed(), FEE, "the accrued fee is still owed (to the treasury)");
      assert.equal(await escrow.read.feesAccrued(), FEE);
      await viem.assertions.emitWithArgs(escrow.write.sweepFees(), escrow, "FeesSwept", [
        getAddress(wallets.treasury.account.address),
        FEE,
      ]);
      assert.equal(await usdc.read.balanceOf([wallets.treasury.account.address]), FEE);
      assert.equal(await escrow.read.totalOwed(), 0n);
      await viem.assertions.revertWithCustomError(
        escrow.write.approve([runId], { account: poster.account }),
        escrow,
        "RunEscrowInvalidState",
      );
      await assertBalanced(fx);
    });

    it("approve / requestRevision / reject are the poster's (the relayer needs its consent)", async () => {
      const fx = await fixture();
      const { escrow, runId, agent, wallets } = fx;
      await toSubmitted(fx);
      for (const fn of ["approve", "requestRevision", "reject"] as const) {
        for (const who of [agent, wallets.other]) {
          await viem.assertions.revertWithCustomError(
            escrow.write[fn]([runId], { account: who.account }),
            escrow,
            "RunEscrowUnauthorized",
          );
        }
      }
      await viem.assertions.revertWithCustomError(
        escrow.write.requestRevision([runId], { account: wallets.relayer.account }),
        escrow,
        "RunEscrowUnauthorized",
      );
      const consent = await signConsent(fx, fx.poster, "requestRevision", runId);
      await escrow.write.requestRevisionBySig([runId, consent], { account: wallets.relayer.account });
      assert.equal((await escrow.read.getRun([runId])).state, State.RevisionRequested);
    });

    it("revisions up to maxRevisions, then reject refunds the poster and marks the agent failed", async () => {
      const fx = await fixture();
      const { escrow, usdc, runId, agentId, agent, poster } = fx;
      await toSubmitted(fx);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.reject([runId], { account: poster.account }),
        escrow,
        "RunEscrowRevisionsRemaining",
        [runId],
      );
      await viem.assertions.emitWithArgs(
        escrow.write.requestRevision([runId], { account: poster.account }),
        escrow,
        "RevisionRequested",
        [runId, agentId, 1],
      );
      await viem.assertions.revertWithCustomError(
        escrow.write.approve([runId], { account: poster.account }),
        escrow,
        "RunEscrowInvalidState",
      );
      await escrow.write.submit([runId, bytes32("v2")], { account: agent.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.requestRevision([runId], { account: poster.account }),
        escrow,
        "RunEscrowRevisionsExhausted",
        [runId],
      );
      assert.equal((await escrow.read.failureOf([runId]))[0], 0n);
      await viem.assertions.emitWithArgs(
        escrow.write.reject([runId], { account: poster.account }),
        escrow,
        "RunRejected",
        [runId, agentId],
      );
      assert.equal(await usdc.read.balanceOf([poster.account.address]), REWARD + FEE);
      assert.equal((await escrow.read.failureOf([runId]))[0], agentId);
      const run = await escrow.read.getRun([runId]);
      assert.equal(run.state, State.Rejected);
      assert.equal(run.revisions, 1);
      await assertBalanced(fx);
    });
  });

  describe("disputes", () => {
    it("poster or agent owner (or the relayer with either's consent) may dispute a Submitted or RevisionRequested run", async () => {
      const fx = await fixture();
      const { escrow, runId, agentId, agent, poster, wallets } = fx;
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.dispute([runId], { account: poster.account }),
        escrow,
        "RunEscrowInvalidState",
        [runId, State.Open],
      );
      await toSubmitted(fx);
      await viem.assertions.revertWithCustomError(
        escrow.write.dispute([runId], { account: wallets.other.account }),
        escrow,
        "RunEscrowUnauthorized",
      );
      await viem.assertions.emitWithArgs(
        escrow.write.dispute([runId], { account: agent.account }),
        escrow,
        "RunDisputed",
        [runId, agentId, agent.account.address],
      );
      assert.equal((await escrow.read.getRun([runId])).state, State.Disputed);

      // From RevisionRequested, via the relayer with the agent owner's consent (`by` is the signer).
      const run2 = await createFundedRun(fx, poster.account.address, REWARD, { maxRevisions: 1 });
      await escrow.write.claim([run2, agentId], { account: agent.account });
      await escrow.write.submit([run2, bytes32("a")], { account: agent.account });
      await escrow.write.requestRevision([run2], { account: poster.account });
      await viem.assertions.revertWithCustomError(
        escrow.write.dispute([run2], { account: wallets.relayer.account }),
        escrow,
        "RunEscrowUnauthorized",
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.disputeBySig([run2, await signConsent(fx, wallets.other, "dispute", run2)], {
          account: wallets.relayer.account,
        }),
        escrow,
        "RunEscrowWrongSigner",
        [getAddress(wallets.other.account.address)],
      );
      await viem.assertions.emitWithArgs(
        escrow.write.disputeBySig([run2, await signConsent(fx, agent, "dispute", run2)], {
          account: wallets.relayer.account,
        }),
        escrow,
        "RunDisputed",
        [run2, agentId, getAddress(agent.account.address)],
      );
      // And by the poster.
      const run3 = await createFundedRun(fx, poster.account.address, REWARD);
      await escrow.write.claim([run3, agentId], { account: agent.account });
      await escrow.write.submit([run3, bytes32("b")], { account: agent.account });
      await escrow.write.dispute([run3], { account: poster.account });
      assert.equal((await escrow.read.getRun([run3])).state, State.Disputed);
    });

    it("resolve for the agent completes and pays as approve", async () => {
      const fx = await fixture();
      const { escrow, usdc, runId, agentId, agent, wallets } = fx;
      await toDisputed(fx);
      const tx = escrow.write.resolve([runId, true], { account: wallets.admin.account });
      await viem.assertions.emitWithArgs(tx, escrow, "DisputeResolved", [runId, agentId, true, 0n]);
      await viem.assertions.emitWithArgs(tx, escrow, "RunCompleted", [runId, agentId, REWARD, FEE]);
      assert.equal(await escrow.read.rewardsOf([agentId]), REWARD);
      await escrow.write.payRewards([[agentId]]);
      assert.equal(await usdc.read.balanceOf([agent.account.address]), REWARD);
      assert.equal(await escrow.read.feesAccrued(), FEE);
      assert.equal((await escrow.read.getRun([runId])).state, State.Completed);
      await assertBalanced(fx);
    });

    it("resolve for the poster slashes the stake to the poster and reopens the run for another agent", async () => {
      const fx = await fixture();
      const { escrow, usdc, vault, runId, agentId, poster, wallets, deadline } = fx;
      await toDisputed(fx);
      const stake = await vault.read.stakeOf([agentId]);
      const tx = escrow.write.resolve([runId, false], { account: wallets.admin.account });
      await viem.assertions.emitWithArgs(tx, escrow, "DisputeResolved", [runId, agentId, false, stake / 2n]);
      await viem.assertions.emitWithArgs(tx, vault, "Slashed", [
        agentId,
        poster.account.address,
        stake / 2n,
        5000n,
        "dispute lost",
      ]);
      assert.equal(await usdc.read.balanceOf([poster.account.address]), stake / 2n);
      assert.equal(await vault.read.stakeOf([agentId]), stake - stake / 2n);
      assert.equal((await escrow.read.failureOf([runId]))[0], agentId);
      assert.deepEqual(await escrow.read.getRun([runId]), {
        poster: getAddress(poster.account.address),
        deadline,
        maxRevisions: 1,
        revisions: 0,
        state: State.Open,
        reward: REWARD,
        fee: FEE,
        agentId: 0n,
        claimedAt: 0n,
        deliverableHash: zeroHash,
        since: 0n,
      });
      assert.equal(await escrow.read.totalOwed(), REWARD + FEE);

      const other = await mintAgent(fx, wallets.agentOwner2.account.address);
      await stakeAgent(fx, other, wallets.agentOwner2.account.address);
      await escrow.write.claim([runId, other], { account: wallets.agentOwner2.account });
      await escrow.write.submit([runId, bytes32("good")], { account: wallets.agentOwner2.account });
      await escrow.write.approve([runId], { account: poster.account });
      await escrow.write.payRewards([[other, agentId]]);
      assert.equal(await usdc.read.balanceOf([wallets.agentOwner2.account.address]), REWARD);
      // The failure record stays with the run.
      assert.equal((await escrow.read.failureOf([runId]))[0], agentId);
      await assertBalanced(fx);
    });

    it("resolve is ARBITER_ROLE only and needs a Disputed run", async () => {
      const fx = await fixture();
      const { escrow, runId, poster, wallets } = fx;
      await toSubmitted(fx);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.resolve([runId, true], { account: wallets.admin.account }),
        escrow,
        "RunEscrowInvalidState",
        [runId, State.Submitted],
      );
      await escrow.write.dispute([runId], { account: poster.account });
      for (const who of [poster, wallets.relayer, wallets.other]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          escrow.write.resolve([runId, false], { account: who.account }),
          escrow,
          "RunEscrowUnauthorized",
          [getAddress(who.account.address)],
        );
      }
    });
  });

  describe("cancel / timeoutSlash", () => {
    it("cancel refunds an open run; not once claimed", async () => {
      const fx = await fixture();
      const { escrow, usdc, runId, agentId, agent, poster, wallets } = fx;
      await viem.assertions.revertWithCustomError(
        escrow.write.cancel([runId], { account: wallets.other.account }),
        escrow,
        "RunEscrowUnauthorized",
      );
      await viem.assertions.emitWithArgs(
        escrow.write.cancel([runId], { account: poster.account }),
        escrow,
        "RunCancelled",
        [runId],
      );
      assert.equal(await usdc.read.balanceOf([poster.account.address]), REWARD + FEE);
      assert.equal((await escrow.read.getRun([runId])).state, State.Cancelled);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.cancel([runId], { account: poster.account }),
        escrow,
        "RunEscrowInvalidState",
        [runId, State.Cancelled],
      );
      const run2 = await createFundedRun(fx, poster.account.address, REWARD);
      await escrow.write.claim([run2, agentId], { account: agent.account });
      await viem.assertions.revertWithCustomError(
        escrow.write.cancel([run2], { account: poster.account }),
        escrow,
        "RunEscrowInvalidState",
      );
      await assertBalanced(fx);
    });

    it("timeoutSlash after 7 days without submission: refund, slash to the poster, TimedOut", async () => {
      const fx = await fixture();
      const { escrow, usdc, vault, runId, agentId, agent, poster, publicClient } = fx;
      await escrow.write.claim([runId, agentId], { account: agent.account });
      const claimedAt = (await publicClient.getBlock()).timestamp;
      await escrow.write.start([runId], { account: agent.account });
      const availableAt = claimedAt + 7n * DAY;
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.timeoutSlash([runId], { account: poster.account }),
        escrow,
        "RunEscrowTimeoutNotReached",
        [runId, availableAt],
      );
      await networkHelpers.time.setNextBlockTimestamp(availableAt);
      const stake = await vault.read.stakeOf([agentId]);
      const tx = escrow.write.timeoutSlash([runId], { account: poster.account });
      await viem.assertions.emitWithArgs(tx, escrow, "RunTimedOut", [runId, agentId, stake / 2n]);
      await viem.assertions.emitWithArgs(tx, vault, "Slashed", [
        agentId,
        poster.account.address,
        stake / 2n,
        5000n,
        "claim timeout",
      ]);
      assert.equal(await usdc.read.balanceOf([poster.account.address]), REWARD + FEE + stake / 2n);
      assert.equal((await escrow.read.getRun([runId])).state, State.TimedOut);
      assert.equal((await escrow.read.failureOf([runId]))[0], agentId);
      await viem.assertions.revertWithCustomError(
        escrow.write.timeoutSlash([runId], { account: poster.account }),
        escrow,
        "RunEscrowInvalidState",
      );
      await assertBalanced(fx);
    });

    it("timeoutSlash: not after a submission, not by strangers, and it still works when the stake is gone", async () => {
      const fx = await fixture();
      const { escrow, vault, runId, agentId, agent, poster, wallets } = fx;
      await toSubmitted(fx);
      await networkHelpers.time.increase(8n * DAY);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.timeoutSlash([runId], { account: poster.account }),
        escrow,
        "RunEscrowInvalidState",
        [runId, State.Submitted],
      );
      const run2 = await createFundedRun(fx, poster.account.address, REWARD);
      await escrow.write.claim([run2, agentId], { account: agent.account });
      // The agent asks to withdraw everything above the locked minimum right after claiming...
      await viem.assertions.revertWithCustomError(
        vault.write.requestWithdrawal([agentId, await vault.read.stakeOf([agentId])], { account: agent.account }),
        vault,
        "StakeVaultStakeLocked",
      );
      await vault.write.requestWithdrawal([agentId, (await vault.read.stakeOf([agentId])) - MIN_STAKE], {
        account: agent.account,
      });
      await networkHelpers.time.increase(7n * DAY);
      await viem.assertions.revertWithCustomError(
        escrow.write.timeoutSlash([run2], { account: wallets.other.account }),
        escrow,
        "RunEscrowUnauthorized",
      );
      // ...but the pending withdrawal is still slashable at the timeout.
      await escrow.write.timeoutSlash([run2], { account: wallets.relayer.account });
      assert.equal(await vault.read.stakeOf([agentId]), MIN_STAKE);
      const [pending] = await vault.read.pendingWithdrawal([agentId]);
      assert.equal(pending, MIN_STAKE);
      await assertBalanced(fx);
    });
  });

  describe("admin", () => {
    it("setSlashBps and setTreasury: admin only, validated, emitted, used", async () => {
      const fx = await fixture();
      const { escrow, usdc, vault, runId, agentId, poster, wallets } = fx;
      for (const bps of [0n, 10_001n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          escrow.write.setSlashBps([bps], { account: wallets.admin.account }),
          escrow,
          "RunEscrowInvalidBps",
          [bps],
        );
      }
      await viem.assertions.revertWithCustomError(
        escrow.write.setSlashBps([100n], { account: wallets.other.account }),
        escrow,
        "AccessControlUnauthorizedAccount",
      );
      await viem.assertions.emitWithArgs(
        escrow.write.setSlashBps([10_000n], { account: wallets.admin.account }),
        escrow,
        "SlashBpsUpdated",
        [10_000n],
      );
      await viem.assertions.revertWithCustomError(
        escrow.write.setTreasury([zeroAddress], { account: wallets.admin.account }),
        escrow,
        "RunEscrowZeroAddress",
      );
      await viem.assertions.revertWithCustomError(
        escrow.write.setTreasury([wallets.other.account.address], { account: wallets.other.account }),
        escrow,
        "AccessControlUnauthorizedAccount",
      );
      await viem.assertions.emitWithArgs(
        escrow.write.setTreasury([wallets.other.account.address], { account: wallets.admin.account }),
        escrow,
        "TreasuryUpdated",
        [wallets.other.account.address],
      );
      await toDisputed(fx);
      await escrow.write.resolve([runId, false], { account: wallets.admin.account });
      assert.equal(await vault.read.stakeOf([agentId]), 0n);
      assert.equal(await usdc.read.balanceOf([poster.account.address]), MIN_STAKE * 2n);
      const run2 = await createFundedRun(fx, poster.account.address, REWARD);
      const staked = await mintAgent(fx, wallets.agentOwner2.account.address);
      await stakeAgent(fx, staked, wallets.agentOwner2.account.address);
      await escrow.write.claim([run2, staked], { account: wallets.agentOwner2.account });
      await escrow.write.submit([run2, bytes32("z")], { account: wallets.agentOwner2.account });
      await escrow.write.approve([run2], { account: poster.account });
      await escrow.write.sweepFees();
      assert.equal(await usdc.read.balanceOf([wallets.other.account.address]), FEE);
    });
  });

  it("rejects reentrant calls through the token", async () => {
    const fx = await fixture();
    const { vault, identity, wallets, publicClient, poster } = fx;
    const token = await viem.deployContract("MockReentrantERC20");
    const escrow = await viem.deployContract("RunEscrow", [
      token.address,
      vault.address,
      identity.address,
      wallets.admin.account.address,
      wallets.relayer.account.address,
      wallets.treasury.account.address,
    ]);
    await wait(publicClient, token.write.mint([poster.account.address, 10n * REWARD]));
    await wait(publicClient, token.write.approve([escrow.address, 10n * REWARD], { account: poster.account }));
    const deadline = (await publicClient.getBlock()).timestamp + DAY;
    await wait(publicClient, escrow.write.createRun([REWARD, deadline, 0, 0n, ""], { account: poster.account }));
    // While funding run 2, the token calls back into cancel(1).
    await wait(
      publicClient,
      token.write.setHook([
        escrow.address,
        encodeFunctionData({ abi: escrow.abi, functionName: "cancel", args: [1n] }),
      ]),
    );
    await viem.assertions.revertWithCustomError(
      escrow.write.createRun([REWARD, deadline, 0, 0n, ""], { account: poster.account }),
      escrow,
      "ReentrancyGuardReentrantCall",
    );
  });
});

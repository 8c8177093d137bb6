/**
 * Money safety on chain (issue 12): each `describe` is one finding, each test an attack or a rule that failed on
 * the contracts before the fix. Balances are checked to the base unit.
 */
import assert from "node:assert/strict";
import { network } from "hardhat";
import type { NetworkConnection } from "hardhat/types/network";
import { describe, it } from "mocha";
import { getAddress, type Hex, maxUint256 } from "viem";
import {
  bytes32,
  type Core,
  createFundedRun,
  DAY,
  deployCore,
  deployCoreWithBlacklist,
  feeOf,
  MIN_STAKE,
  mintAgent,
  signConsent,
  stakeAgent,
  wait,
} from "./fixtures.ts";

const connection = await network.create();
const { viem, networkHelpers } = connection;

const usd = (n: bigint) => n * 1_000_000n;
const REWARD = usd(100n);
const FEE = feeOf(REWARD);
const SLASH_BPS = 5_000n;
const TIMEOUT = 7n * DAY;
const COOLDOWN = 14n * DAY;
const Trust = { Good: 0, Frozen: 1, Banned: 2 } as const;
const Failure = { None: 0, Rejected: 1, TimedOut: 2, DisputeLost: 3 } as const;

/** Core + insurance pool + agent 1 (owner agentOwner, 2x min stake) + agent 2 (owner agentOwner2, min stake). */
async function setup(conn: NetworkConnection, core: Core) {
  const { admin, relayer, agentOwner, agentOwner2 } = core.wallets;
  const pool = await conn.viem.deployContract("InsurancePool", [
    core.usdc.address,
    core.escrow.address,
    core.identity.address,
    admin.account.address,
    relayer.account.address,
  ]);
  const agent = await mintAgent(core, agentOwner.account.address);
  await stakeAgent(core, agent, agentOwner.account.address, 2n * MIN_STAKE);
  const agent2 = await mintAgent(core, agentOwner2.account.address);
  await stakeAgent(core, agent2, agentOwner2.account.address, MIN_STAKE);
  return { ...core, pool, agent, agent2 };
}
const fixture = async (conn: NetworkConnection) => setup(conn, await deployCore(conn));
const blacklistFixture = async (conn: NetworkConnection) => setup(conn, await deployCoreWithBlacklist(conn));
type Fx = Awaited<ReturnType<typeof fixture>>;

const load = () => networkHelpers.loadFixture(fixture);

async function stakeCoverage(fx: Fx, agentId: bigint, amount: bigint) {
  const { usdc, pool, publicClient, wallets } = fx;
  const payer = wallets.other;
  await wait(publicClient, usdc.write.mint([payer.account.address, amount]));
  await wait(publicClient, usdc.write.approve([pool.address, amount], { account: payer.account }));
  await wait(publicClient, pool.write.stake([agentId, amount], { account: payer.account }));
}

/** Escrow and vault each hold exactly what they owe; the pool holds the sum of coverage. */
async function assertSolvent(fx: Fx, accounts: Hex[] = []) {
  const { usdc, escrow, vault, pool } = fx;
  const [escrowBal, owed, vaultBal, staked, vaultCredits, poolBal, coverage] = await Promise.all([
    usdc.read.balanceOf([escrow.address]),
    escrow.read.totalOwed(),
    usdc.read.balanceOf([vault.address]),
    vault.read.totalStaked(),
    vault.read.totalCredits(),
    usdc.read.balanceOf([pool.address]),
    pool.read.totalCoverage(),
  ]);
  assert.equal(escrowBal, owed, "escrow balance == totalOwed");
  assert.equal(vaultBal, staked + vaultCredits, "vault balance == totalStaked + totalCredits");
  assert.equal(poolBal, coverage, "pool balance == totalCoverage");
  let credits = 0n;
  for (const a of accounts) credits += await escrow.read.creditOf([a]);
  assert.ok(owed >= (await escrow.read.feesAccrued()) + credits, "owed covers fees and credits");
}

const balances = async (fx: Fx, accounts: Hex[]) =>
  Promise.all(accounts.map((a) => fx.usdc.read.balanceOf([a]))) as Promise<bigint[]>;

/** Agreed damages the tests' posters declare. */
const COVER = usd(60n);

async function claimAndSubmit(fx: Fx, runId: bigint, agentId = fx.agent, owner = fx.wallets.agentOwner) {
  await wait(fx.publicClient, fx.escrow.write.claim([runId, agentId], { account: owner.account }));
  await wait(fx.publicClient, fx.escrow.write.submit([runId, bytes32(`work-${runId}`)], { account: owner.account }));
}

describe("money safety (issue 12)", () => {
  describe("1. insurance pays only a verified loss, once per run", () => {
    it("a rejected run's poster, refunded in full by the escrow, cannot also claim the agent's coverage", async () => {
      const fx = await load();
      const { escrow, pool, wallets, publicClient } = fx;
      const poster = wallets.poster.account.address;
      await stakeCoverage(fx, fx.agent, usd(500n));
      const runId = await createFundedRun(fx, poster, REWARD, { maxRevisions: 0, cover: REWARD });
      await claimAndSubmit(fx, runId);
      const [before] = await balances(fx, [poster]);
      await wait(publicClient, escrow.write.reject([runId], { account: wallets.poster.account }));
      const [afterReject] = await balances(fx, [poster]);
      assert.equal(afterReject, before! + REWARD + FEE, "the escrow refunds reward + fee");

      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([runId], { account: wallets.poster.account }),
        pool,
        "InsurancePoolLossNotVerified",
        [runId],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([runId], { account: wallets.relayer.account }),
        pool,
        "InsurancePoolLossNotVerified",
        [runId],
      );
      assert.equal((await balances(fx, [poster]))[0], afterReject, "nothing more paid");
      assert.equal(await pool.read.coverageOf([fx.agent]), usd(500n));
      assert.deepEqual(await escrow.read.failureOf([runId]), [fx.agent, Failure.Rejected, 0n]);
      await assertSolvent(fx);
    });

    it("a timeout pays the declared damages net of the stake slashed to the poster, once: deposit + cover, never 2x", async () => {
      const fx = await load();
      const { escrow, pool, vault, wallets, publicClient } = fx;
      const poster = wallets.poster.account.address;
      await stakeCoverage(fx, fx.agent, usd(500n));
      const runId = await createFundedRun(fx, poster, REWARD, { cover: COVER });
      const [funded] = await balances(fx, [poster]);
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: wallets.agentOwner.account }));
      await networkHelpers.time.increase(TIMEOUT);
      const stake = await vault.read.stakeOf([fx.agent]);
      const slash = (stake * SLASH_BPS) / 10_000n;
      const [before] = await balances(fx, [poster]);
      await wait(publicClient, escrow.write.timeoutSlash([runId], { account: wallets.poster.account }));
      const [afterTimeout] = await balances(fx, [poster]);
      assert.equal(afterTimeout, before! + REWARD + FEE + slash, "refund + slash");

      const loss = COVER - slash;
      const tx = pool.write.claim([runId], { account: wallets.poster.account });
      await viem.assertions.emitWithArgs(tx, pool, "ClaimPaid", [runId, fx.agent, getAddress(poster), loss]);
      assert.equal((await balances(fx, [poster]))[0], afterTimeout + loss);
      assert.equal((await balances(fx, [poster]))[0], funded! + REWARD + FEE + COVER, "its deposit + the cover");
      assert.equal(await pool.read.coverageOf([fx.agent]), usd(500n) - loss);
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([runId], { account: wallets.poster.account }),
        pool,
        "InsurancePoolAlreadyClaimed",
        [runId],
      );
      assert.equal(await pool.read.isClaimed([runId]), true);
      assert.deepEqual(await escrow.read.failureOf([runId]), [fx.agent, Failure.TimedOut, slash]);
      await assertSolvent(fx);
    });

    it("a lost dispute pays once; the reopened run failed again by another agent pays nothing more", async () => {
      const fx = await load();
      const { escrow, pool, vault, wallets, publicClient } = fx;
      const poster = wallets.poster.account.address;
      await stakeCoverage(fx, fx.agent, usd(10n));
      await stakeCoverage(fx, fx.agent2, usd(500n));
      const runId = await createFundedRun(fx, poster, REWARD, { maxRevisions: 0, cover: COVER });
      await claimAndSubmit(fx, runId);
      await wait(publicClient, escrow.write.dispute([runId], { account: wallets.poster.account }));
      const slash = ((await vault.read.stakeOf([fx.agent])) * SLASH_BPS) / 10_000n;
      await wait(publicClient, escrow.write.resolve([runId, false], { account: wallets.admin.account }));
      const [before] = await balances(fx, [poster]);
      // Capped by the coverage (10 USDC < the 60 cover - 20).
      await wait(publicClient, pool.write.claim([runId], { account: wallets.poster.account }));
      assert.equal((await balances(fx, [poster]))[0], before! + usd(10n));

      // The run reopened; agent 2 claims it and times out: a new verified failure, but the run was paid once.
      await wait(publicClient, escrow.write.claim([runId, fx.agent2], { account: wallets.agentOwner2.account }));
      await networkHelpers.time.increase(TIMEOUT);
      await wait(publicClient, escrow.write.timeoutSlash([runId], { account: wallets.poster.account }));
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([runId], { account: wallets.poster.account }),
        pool,
        "InsurancePoolAlreadyClaimed",
        [runId],
      );
      assert.equal(await pool.read.coverageOf([fx.agent2]), usd(500n));
      assert.equal(slash, usd(20n));
      await assertSolvent(fx);
    });

    it("nothing is paid when the slash already covered the declared damages", async () => {
      const fx = await load();
      const { escrow, pool, wallets, publicClient } = fx;
      await stakeCoverage(fx, fx.agent, usd(50n));
      // 5 USDC of damages: the 50% slash of a 40 USDC stake (20 USDC) already paid more.
      const runId = await createFundedRun(fx, wallets.poster.account.address, usd(1n), { cover: usd(5n) });
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: wallets.agentOwner.account }));
      await networkHelpers.time.increase(TIMEOUT);
      await wait(publicClient, escrow.write.timeoutSlash([runId], { account: wallets.poster.account }));
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([runId], { account: wallets.poster.account }),
        pool,
        "InsurancePoolNoLoss",
        [runId],
      );
    });
  });

  describe("2. FROZEN and BANNED live on chain", () => {
    it("a slashed agent is frozen: its owner cannot claim runs directly until it stakes back to the minimum", async () => {
      const fx = await load();
      const { escrow, vault, usdc, wallets, publicClient } = fx;
      const owner = wallets.agentOwner;
      // Stake 80: a claim timeout slashes 50% (40 left, above the minimum) and freezes the agent.
      await stakeAgent(fx, fx.agent, owner.account.address, 2n * MIN_STAKE);
      const timedOut = await createFundedRun(fx, wallets.poster.account.address, REWARD);
      await wait(publicClient, escrow.write.claim([timedOut, fx.agent], { account: owner.account }));
      await networkHelpers.time.increase(TIMEOUT);
      await wait(publicClient, escrow.write.timeoutSlash([timedOut], { account: wallets.poster.account }));
      assert.equal(await vault.read.activeStakeOf([fx.agent]), 2n * MIN_STAKE, "still twice the minimum, but frozen");

      const runId = await createFundedRun(fx, wallets.poster.account.address, REWARD);
      // Directly, and through the relayer with the owner's consent.
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([runId, fx.agent], { account: owner.account }),
        vault,
        "StakeVaultAgentFrozen",
        [fx.agent],
      );
      const consent = await signConsent(fx, owner, "claim", runId, { agentId: fx.agent });
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claimBySig([runId, fx.agent, consent], { account: wallets.relayer.account }),
        vault,
        "StakeVaultAgentFrozen",
        [fx.agent],
      );
      assert.deepEqual(await vault.read.trustOf([fx.agent]), [Trust.Frozen, 1n]);
      // A moderation slash freezes too (and announces the state with the strike count).
      const slashTx = vault.write.slash([fx.agent2, 5_000n, "spam"], { account: wallets.admin.account });
      await viem.assertions.emitWithArgs(slashTx, vault, "TrustStateChanged", [fx.agent2, Trust.Frozen, 1n, "spam"]);

      // A deposit that leaves the active stake below the minimum keeps it frozen; reaching it unfreezes.
      await wait(publicClient, usdc.write.mint([owner.account.address, usd(100n)]));
      await wait(publicClient, usdc.write.approve([vault.address, maxUint256], { account: owner.account }));
      await wait(publicClient, vault.write.requestWithdrawal([fx.agent, usd(25n)], { account: owner.account }));
      await wait(publicClient, vault.write.deposit([fx.agent, usd(1n)], { account: owner.account }));
      assert.deepEqual(await vault.read.trustOf([fx.agent]), [Trust.Frozen, 1n]);
      const restake = vault.write.deposit([fx.agent, usd(4n)], { account: owner.account });
      await viem.assertions.emitWithArgs(restake, vault, "TrustStateChanged", [fx.agent, Trust.Good, 1n, "restaked"]);
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: owner.account }));
    });

    it("the third slash of any size bans: a banned agent can neither claim nor stake, and it is permanent", async () => {
      const fx = await load();
      const { escrow, vault, usdc, wallets, publicClient } = fx;
      const owner = wallets.agentOwner;
      await wait(publicClient, usdc.write.mint([owner.account.address, usd(100n)]));
      await wait(publicClient, usdc.write.approve([vault.address, maxUint256], { account: owner.account }));
      // Two small partial slashes (1%), each followed by a re-stake: frozen, then good again.
      for (const strike of [1n, 2n]) {
        await wait(
          publicClient,
          vault.write.slash([fx.agent, 100n, `strike ${strike}`], { account: wallets.admin.account }),
        );
        assert.deepEqual(await vault.read.trustOf([fx.agent]), [Trust.Frozen, strike]);
        await wait(publicClient, vault.write.deposit([fx.agent, usd(1n)], { account: owner.account }));
        assert.deepEqual(await vault.read.trustOf([fx.agent]), [Trust.Good, strike]);
      }
      // A third slash, through a run this time (claim timeout): banned.
      const runId = await createFundedRun(fx, wallets.poster.account.address, REWARD);
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: owner.account }));
      await networkHelpers.time.increase(TIMEOUT);
      const timeout = escrow.write.timeoutSlash([runId], { account: wallets.poster.account });
      await viem.assertions.emitWithArgs(timeout, vault, "TrustStateChanged", [
        fx.agent,
        Trust.Banned,
        3n,
        "claim timeout",
      ]);
      assert.deepEqual(await vault.read.trustOf([fx.agent]), [Trust.Banned, 3n]);

      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.deposit([fx.agent, usd(50n)], { account: owner.account }),
        vault,
        "StakeVaultAgentBanned",
        [fx.agent],
      );
      const run2 = await createFundedRun(fx, wallets.poster.account.address, REWARD);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.claim([run2, fx.agent], { account: owner.account }),
        vault,
        "StakeVaultAgentBanned",
        [fx.agent],
      );
      // The stake itself still belongs to the owner: withdrawable after the cooldown.
      const left = await vault.read.stakeOf([fx.agent]);
      await wait(publicClient, vault.write.requestWithdrawal([fx.agent, left], { account: owner.account }));
      await networkHelpers.time.increase(COOLDOWN);
      const [before] = await balances(fx, [owner.account.address]);
      await wait(publicClient, vault.write.withdraw([fx.agent], { account: owner.account }));
      assert.equal((await balances(fx, [owner.account.address]))[0], before! + left);
    });

    it("governance bans directly (admin only, with a reason); a ban cannot be repeated or lifted by staking", async () => {
      const fx = await load();
      const { vault, wallets, publicClient } = fx;
      for (const stranger of [wallets.relayer, wallets.other]) {
        await viem.assertions.revertWithCustomError(
          vault.write.ban([fx.agent, "fraud"], { account: stranger.account }),
          vault,
          "AccessControlUnauthorizedAccount",
        );
      }
      await viem.assertions.revertWithCustomError(
        vault.write.ban([fx.agent, ""], { account: wallets.admin.account }),
        vault,
        "StakeVaultReasonRequired",
      );
      const tx = vault.write.ban([fx.agent, "fraud"], { account: wallets.admin.account });
      await viem.assertions.emitWithArgs(tx, vault, "TrustStateChanged", [fx.agent, Trust.Banned, 0n, "fraud"]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.ban([fx.agent, "again"], { account: wallets.admin.account }),
        vault,
        "StakeVaultAgentBanned",
        [fx.agent],
      );
      await wait(publicClient, fx.usdc.write.mint([wallets.agentOwner.account.address, usd(20n)]));
      await wait(
        publicClient,
        fx.usdc.write.approve([vault.address, usd(20n)], { account: wallets.agentOwner.account }),
      );
      await viem.assertions.revertWithCustomError(
        vault.write.deposit([fx.agent, usd(20n)], { account: wallets.agentOwner.account }),
        vault,
        "StakeVaultAgentBanned",
      );
    });
  });

  describe("3. the minimum stake is locked while the agent holds a run", () => {
    it("an agent cannot withdraw at claim time and drag a dispute past the cooldown to leave nothing to slash", async () => {
      const fx = await load();
      const { escrow, vault, wallets, publicClient } = fx;
      const owner = wallets.agentOwner;
      const stake = 2n * MIN_STAKE;
      // A dispute window longer than the cooldown (governance may set up to 90 days): the arbiter still decides.
      await wait(publicClient, escrow.write.setWindows([7n * DAY, 30n * DAY], { account: wallets.admin.account }));
      const runId = await createFundedRun(fx, wallets.poster.account.address, REWARD, { maxRevisions: 3 });
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: owner.account }));

      // The whole stake: refused; the part above the minimum: fine.
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.requestWithdrawal([fx.agent, stake], { account: owner.account }),
        vault,
        "StakeVaultStakeLocked",
        [fx.agent, 1n],
      );
      await wait(publicClient, vault.write.requestWithdrawal([fx.agent, MIN_STAKE], { account: owner.account }));
      assert.equal(await vault.read.locksOf([fx.agent]), 1n);
      // Drag the run: submit, revisions, then a dispute, well past the cooldown.
      await wait(publicClient, escrow.write.submit([runId, bytes32("v1")], { account: owner.account }));
      await wait(publicClient, escrow.write.requestRevision([runId], { account: wallets.poster.account }));
      await networkHelpers.time.increase(6n * DAY);
      await wait(publicClient, escrow.write.submit([runId, bytes32("v2")], { account: owner.account }));
      await wait(publicClient, escrow.write.dispute([runId], { account: owner.account }));
      await networkHelpers.time.increase(COOLDOWN);
      // The part above the minimum leaves; the minimum stays for the arbiter.
      await wait(publicClient, vault.write.withdraw([fx.agent], { account: owner.account }));
      assert.equal(await vault.read.stakeOf([fx.agent]), MIN_STAKE);
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.requestWithdrawal([fx.agent, 1n], { account: owner.account }),
        vault,
        "StakeVaultStakeLocked",
        [fx.agent, 1n],
      );

      const [posterBefore] = await balances(fx, [wallets.poster.account.address]);
      await wait(publicClient, escrow.write.resolve([runId, false], { account: wallets.admin.account }));
      const slashed = (MIN_STAKE * SLASH_BPS) / 10_000n;
      assert.equal((await balances(fx, [wallets.poster.account.address]))[0], posterBefore! + slashed);
      assert.equal(await vault.read.locksOf([fx.agent]), 0n, "the run ended: unlocked");
      // Unlocked now: the rest may go (after its own cooldown).
      await wait(
        publicClient,
        vault.write.requestWithdrawal([fx.agent, MIN_STAKE - slashed], { account: owner.account }),
      );
    });

    it("a withdrawal requested before the claim cannot be paid out while a run holds the stake below it", async () => {
      const fx = await load();
      const { escrow, vault, wallets, publicClient } = fx;
      const owner = wallets.agentOwner;
      // 40 staked, 20 pending: 20 active, enough to claim.
      await wait(publicClient, vault.write.requestWithdrawal([fx.agent, MIN_STAKE], { account: owner.account }));
      const runId = await createFundedRun(fx, wallets.poster.account.address, REWARD);
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: owner.account }));
      // A moderation slash of 25% (to 30) trims nothing from the pending 20, but paying it would leave 10 < 20.
      await wait(publicClient, vault.write.slash([fx.agent, 2_500n, "late"], { account: wallets.admin.account }));
      await networkHelpers.time.increase(COOLDOWN);
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.withdraw([fx.agent], { account: owner.account }),
        vault,
        "StakeVaultStakeLocked",
        [fx.agent, 1n],
      );
      // Submitting and getting approved ends the run: the lock goes, the withdrawal pays.
      await wait(publicClient, escrow.write.submit([runId, bytes32("done")], { account: owner.account }));
      await wait(publicClient, escrow.write.approve([runId], { account: wallets.poster.account }));
      assert.equal(await vault.read.locksOf([fx.agent]), 0n);
      await wait(publicClient, vault.write.withdraw([fx.agent], { account: owner.account }));
      assert.equal(await vault.read.stakeOf([fx.agent]), usd(10n));
    });

    it("the lock is the escrow's live-run count: only governance names the escrow, only the escrow slashes for a run", async () => {
      const fx = await load();
      const { escrow, vault, wallets, publicClient } = fx;
      assert.equal((await vault.read.runEscrow()).toLowerCase(), escrow.address.toLowerCase());
      const runId = await createFundedRun(fx, wallets.poster.account.address, REWARD);
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: wallets.agentOwner.account }));
      assert.equal(await escrow.read.liveRunsOf([fx.agent]), 1n);
      assert.equal(await vault.read.locksOf([fx.agent]), 1n, "the vault reads the escrow's count");
      // Nobody but governance can point the vault at a lock source that would release the stake.
      for (const who of [wallets.relayer, wallets.agentOwner]) {
        await viem.assertions.revertWithCustomError(
          vault.write.setRunEscrow([wallets.other.account.address], { account: who.account }),
          vault,
          "AccessControlUnauthorizedAccount",
        );
      }
      await viem.assertions.revertWithCustomError(
        vault.write.slashForRun([fx.agent, 10_000n, wallets.relayer.account.address, "x"], {
          account: wallets.relayer.account,
        }),
        vault,
        "AccessControlUnauthorizedAccount",
      );
    });
  });

  describe("4. REVISION_REQUESTED times out like a claim", () => {
    it("an agent that never resubmits is slashed after 7 days of chain time; the poster is refunded", async () => {
      const fx = await load();
      const { escrow, vault, wallets, publicClient } = fx;
      const poster = wallets.poster.account.address;
      const runId = await createFundedRun(fx, poster, REWARD, { maxRevisions: 2 });
      await claimAndSubmit(fx, runId);
      await networkHelpers.time.increase(6n * DAY); // the claim timeout must not be what counts
      await wait(publicClient, escrow.write.requestRevision([runId], { account: wallets.poster.account }));
      const requestedAt = (await publicClient.getBlock()).timestamp;

      await networkHelpers.time.increase(TIMEOUT - 10n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.timeoutSlash([runId], { account: wallets.poster.account }),
        escrow,
        "RunEscrowTimeoutNotReached",
        [runId, requestedAt + TIMEOUT],
      );
      await networkHelpers.time.setNextBlockTimestamp(requestedAt + TIMEOUT);
      const slash = ((await vault.read.stakeOf([fx.agent])) * SLASH_BPS) / 10_000n;
      const [before] = await balances(fx, [poster]);
      const tx = escrow.write.timeoutSlash([runId], { account: wallets.poster.account });
      await viem.assertions.emitWithArgs(tx, escrow, "RunTimedOut", [runId, fx.agent, slash]);
      assert.equal((await balances(fx, [poster]))[0], before! + REWARD + FEE + slash);
      assert.equal((await escrow.read.getRun([runId])).state, 10);
      assert.deepEqual(await escrow.read.failureOf([runId]), [fx.agent, Failure.TimedOut, slash]);
      assert.equal(await vault.read.locksOf([fx.agent]), 0n);
      assert.equal((await escrow.read.getRun([runId])).since, requestedAt);
      assert.equal(await escrow.read.claimTimeout(), TIMEOUT, "the claim timeout also bounds a revision");
      await assertSolvent(fx);
    });

    it("a resubmission stops the clock", async () => {
      const fx = await load();
      const { escrow, wallets, publicClient } = fx;
      const runId = await createFundedRun(fx, wallets.poster.account.address, REWARD, { maxRevisions: 2 });
      await claimAndSubmit(fx, runId);
      await wait(publicClient, escrow.write.requestRevision([runId], { account: wallets.poster.account }));
      await wait(publicClient, escrow.write.submit([runId, bytes32("v2")], { account: wallets.agentOwner.account }));
      await networkHelpers.time.increase(30n * DAY);
      await viem.assertions.revertWithCustomError(
        escrow.write.timeoutSlash([runId], { account: wallets.poster.account }),
        escrow,
        "RunEscrowInvalidState",
      );
    });
  });

  describe("5. a USDC-blacklisted party cannot block settlement (pull-payment fallback)", () => {
    const loadBl = () => networkHelpers.loadFixture(blacklistFixture);

    it("a blacklisted poster's cancel refund is credited; it is paid once the poster is unblacklisted", async () => {
      const fx = await loadBl();
      const { escrow, wallets, publicClient } = fx;
      const usdc = await viem.getContractAt("MockBlacklistUSDC", fx.usdc.address);
      const poster = wallets.poster.account.address;
      const runId = await createFundedRun(fx, poster, REWARD);
      await wait(publicClient, usdc.write.blacklist([poster]));
      const tx = escrow.write.cancel([runId], { account: wallets.poster.account });
      await viem.assertions.emitWithArgs(tx, escrow, "PaymentDeferred", [getAddress(poster), REWARD + FEE]);
      assert.equal((await escrow.read.getRun([runId])).state, 9, "Cancelled");
      assert.equal(await escrow.read.creditOf([poster]), REWARD + FEE);
      await assertSolvent(fx, [poster]);

      await viem.assertions.revertWithCustomError(
        escrow.write.withdrawCredit([poster], { account: wallets.other.account }),
        usdc,
        "Blacklisted",
      );
      await wait(publicClient, usdc.write.unBlacklist([poster]));
      const [before] = await balances(fx, [poster]);
      const pay = escrow.write.withdrawCredit([poster], { account: wallets.other.account });
      await viem.assertions.emitWithArgs(pay, escrow, "CreditWithdrawn", [getAddress(poster), REWARD + FEE]);
      assert.equal((await balances(fx, [poster]))[0], before! + REWARD + FEE, "paid to the poster, not the caller");
      assert.equal(await escrow.read.creditOf([poster]), 0n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.withdrawCredit([poster]),
        escrow,
        "RunEscrowNoCredit",
        [getAddress(poster)],
      );
      await assertSolvent(fx, [poster]);
    });

    it("a blacklisted agent owner's reward is credited; the run completes and the fee accrues", async () => {
      const fx = await loadBl();
      const { escrow, vault, wallets, publicClient } = fx;
      const usdc = await viem.getContractAt("MockBlacklistUSDC", fx.usdc.address);
      const owner = wallets.agentOwner.account.address;
      const runId = await createFundedRun(fx, wallets.poster.account.address, REWARD);
      await claimAndSubmit(fx, runId);
      await wait(publicClient, usdc.write.blacklist([owner]));
      const fees = await escrow.read.feesAccrued();
      await wait(publicClient, escrow.write.approve([runId], { account: wallets.poster.account }));
      assert.equal((await escrow.read.getRun([runId])).state, 7, "Completed");
      assert.equal(await escrow.read.rewardsOf([fx.agent]), REWARD);
      assert.equal(await escrow.read.feesAccrued(), fees + FEE);
      assert.equal(await vault.read.locksOf([fx.agent]), 0n);
      // The payout to a blacklisted owner does not revert: the reward moves to the owner's credit.
      const pay = escrow.write.payRewards([[fx.agent]], { account: wallets.other.account });
      await viem.assertions.emitWithArgs(pay, escrow, "PaymentDeferred", [getAddress(owner), REWARD]);
      assert.equal(await escrow.read.rewardsOf([fx.agent]), 0n);
      assert.equal(await escrow.read.creditOf([owner]), REWARD);
      await assertSolvent(fx, [owner]);
    });

    it("a blacklisted poster's timeout: refund credited by the escrow, slash credited by the vault, agent unlocked", async () => {
      const fx = await loadBl();
      const { escrow, vault, wallets, publicClient } = fx;
      const usdc = await viem.getContractAt("MockBlacklistUSDC", fx.usdc.address);
      const poster = wallets.poster.account.address;
      const runId = await createFundedRun(fx, poster, REWARD);
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: wallets.agentOwner.account }));
      await networkHelpers.time.increase(TIMEOUT);
      await wait(publicClient, usdc.write.blacklist([poster]));
      const slash = ((await vault.read.stakeOf([fx.agent])) * SLASH_BPS) / 10_000n;
      const tx = escrow.write.timeoutSlash([runId], { account: wallets.relayer.account });
      await viem.assertions.emitWithArgs(tx, vault, "PaymentDeferred", [getAddress(poster), slash]);
      assert.equal(await escrow.read.creditOf([poster]), REWARD + FEE);
      assert.equal(await vault.read.creditOf([poster]), slash);
      assert.equal(await vault.read.totalCredits(), slash);
      assert.equal(await vault.read.locksOf([fx.agent]), 0n);
      await assertSolvent(fx, [poster]);

      await wait(publicClient, usdc.write.unBlacklist([poster]));
      const [before] = await balances(fx, [poster]);
      await wait(publicClient, vault.write.withdrawCredit([poster], { account: wallets.other.account }));
      await wait(publicClient, escrow.write.withdrawCredit([poster], { account: wallets.other.account }));
      assert.equal((await balances(fx, [poster]))[0], before! + slash + REWARD + FEE);
      assert.equal(await vault.read.totalCredits(), 0n);
      await assertSolvent(fx, [poster]);
    });
  });

  describe("6. the fee rounds up (no free micro-runs)", () => {
    it("charges at least one base unit: 1 -> 1, 19 -> 1, 20 -> 1, 21 -> 2, 100 USDC -> 5 USDC", async () => {
      const fx = await load();
      const { escrow, wallets, publicClient, usdc } = fx;
      const poster = wallets.poster.account.address;
      // Below the minimum reward (0.01 USDC at deployment): governance may lower it to zero; the fee still rounds up.
      await wait(publicClient, escrow.write.setMinReward([0n], { account: wallets.admin.account }));
      for (const [reward, fee] of [
        [1n, 1n],
        [19n, 1n],
        [20n, 1n],
        [21n, 2n],
        [usd(100n), usd(5n)],
      ] as const) {
        const [before] = await balances(fx, [poster]);
        await wait(publicClient, usdc.write.mint([poster, reward + fee]));
        await wait(
          publicClient,
          usdc.write.approve([escrow.address, reward + fee], { account: wallets.poster.account }),
        );
        const now = (await publicClient.getBlock()).timestamp;
        await wait(
          publicClient,
          escrow.write.createRun([reward, now + DAY, 0, 0n, "ipfs://micro"], { account: wallets.poster.account }),
        );
        const run = await escrow.read.getRun([await escrow.read.runCount()]);
        assert.equal(run.fee, fee, `fee of ${reward}`);
        assert.equal((await balances(fx, [poster]))[0], before!, `exactly reward + fee pulled for ${reward}`);
      }
      await assertSolvent(fx);
    });
  });

  describe("8. moderation slashes are bounded by their arguments", () => {
    it("go to the treasury only, need a reason, and are rate limited per day", async () => {
      const fx = await load();
      const { vault, wallets, publicClient } = fx;
      // The relayer (which the API uses for admin slashes) holds SLASHER_ROLE in the deployment.
      await wait(
        publicClient,
        vault.write.grantRole([await vault.read.SLASHER_ROLE(), wallets.relayer.account.address], {
          account: wallets.admin.account,
        }),
      );
      const treasury = wallets.treasury.account.address;
      await viem.assertions.revertWithCustomError(
        vault.write.slash([fx.agent, 10_000n, ""], { account: wallets.relayer.account }),
        vault,
        "StakeVaultReasonRequired",
      );
      const [before] = await balances(fx, [treasury]);
      const tx = vault.write.slash([fx.agent, 1n, "report 1"], { account: wallets.relayer.account });
      await viem.assertions.emitWithArgs(tx, vault, "Slashed", [
        fx.agent,
        getAddress(treasury),
        4_000n,
        1n,
        "report 1",
      ]);
      assert.equal((await balances(fx, [treasury]))[0], before! + 4_000n);

      const max = await vault.read.MAX_SLASHES_PER_PERIOD();
      for (let i = 1n; i < max; i++) {
        await wait(publicClient, vault.write.slash([fx.agent2, 1n, `r${i}`], { account: wallets.relayer.account }));
      }
      const windowStart = (await publicClient.getBlock()).timestamp - (max - 1n);
      await viem.assertions.revertWithCustomError(
        vault.write.slash([fx.agent2, 1n, "one too many"], { account: wallets.admin.account }),
        vault,
        "StakeVaultSlashRateLimited",
      );
      await networkHelpers.time.setNextBlockTimestamp(windowStart + DAY);
      await wait(publicClient, vault.write.slash([fx.agent2, 1n, "next day"], { account: wallets.relayer.account }));
    });

    it("the escrow's slashes go to the run's poster and only through a run's verified failure", async () => {
      const fx = await load();
      const { escrow, vault, wallets, publicClient } = fx;
      const poster = wallets.poster2.account.address;
      const runId = await createFundedRun(fx, poster, REWARD);
      await wait(publicClient, escrow.write.claim([runId, fx.agent], { account: wallets.agentOwner.account }));
      await networkHelpers.time.increase(TIMEOUT);
      const slash = ((await vault.read.stakeOf([fx.agent])) * SLASH_BPS) / 10_000n;
      const tx = escrow.write.timeoutSlash([runId], { account: wallets.relayer.account });
      await viem.assertions.emitWithArgs(tx, vault, "Slashed", [
        fx.agent,
        getAddress(poster),
        slash,
        SLASH_BPS,
        "claim timeout",
      ]);
      // The escrow's own role cannot be borrowed: only the escrow contract may slash through a run.
      assert.equal(await vault.read.hasRole([await vault.read.ESCROW_ROLE(), wallets.relayer.account.address]), false);
      assert.equal(await vault.read.hasRole([await vault.read.ESCROW_ROLE(), escrow.address]), true);
    });
  });

  describe("fee accrual (issue 15): one transfer per completion, one sweep for many", () => {
    it("approve moves no USDC; payRewards pays an agent's rewards in one transfer, sweepFees every fee in one", async () => {
      const fx = await load();
      const { escrow, usdc, wallets, publicClient } = fx;
      const treasury = wallets.treasury.account.address;
      const owner = wallets.agentOwner.account.address;
      await wait(publicClient, escrow.write.setMinReward([0n], { account: wallets.admin.account }));
      const rewards = [usd(10n), 21n, usd(3n)];
      const [ownerBefore] = await balances(fx, [owner]);
      for (const reward of rewards) {
        const runId = await createFundedRun(fx, wallets.poster.account.address, reward);
        await claimAndSubmit(fx, runId);
        const hash = await escrow.write.approve([runId], { account: wallets.poster.account });
        const receipt = await publicClient.waitForTransactionReceipt({ hash });
        const transfers = receipt.logs.filter((l) => getAddress(l.address) === getAddress(usdc.address));
        assert.equal(transfers.length, 0, "approve moves no USDC: the reward is the agent's, the fee accrues");
      }
      const earned = rewards.reduce((s, r) => s + r, 0n);
      assert.equal(await escrow.read.rewardsOf([fx.agent]), earned);
      await assertSolvent(fx);
      // Anyone may trigger the payout; it goes to the token's owner, in one transfer for the three runs, once.
      const payHash = await escrow.write.payRewards([[fx.agent, fx.agent2, fx.agent]], {
        account: wallets.other.account,
      });
      const payReceipt = await publicClient.waitForTransactionReceipt({ hash: payHash });
      const payTransfers = payReceipt.logs.filter((l) => getAddress(l.address) === getAddress(usdc.address));
      assert.equal(payTransfers.length, 1, "one transfer for the agent's three rewards; nothing for agent2");
      assert.equal((await balances(fx, [owner]))[0], ownerBefore! + earned, "to the owner, to the base unit");
      assert.equal(await escrow.read.rewardsOf([fx.agent]), 0n);
      await viem.assertions.revertWithCustomError(
        escrow.write.payRewards([[fx.agent, fx.agent2]]),
        escrow,
        "RunEscrowNothingToPay",
      );
      const total = rewards.reduce((s, r) => s + feeOf(r), 0n);
      assert.equal(await escrow.read.feesAccrued(), total);
      const [before] = await balances(fx, [treasury]);
      const tx = escrow.write.sweepFees({ account: wallets.other.account });
      await viem.assertions.emitWithArgs(tx, escrow, "FeesSwept", [getAddress(treasury), total]);
      assert.equal((await balances(fx, [treasury]))[0], before! + total);
      assert.equal(await escrow.read.feesAccrued(), 0n);
      await viem.assertions.revertWithCustomError(escrow.write.sweepFees(), escrow, "RunEscrowNothingToSweep");
      await assertSolvent(fx);
    });
  });
});

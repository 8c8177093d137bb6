import assert from "node:assert/strict";
import { network } from "hardhat";
import { getAddress } from "viem";
import {
  bytes32,
  type Core,
  createFundedRun,
  DAY,
  deployCore,
  feeOf,
  mintAgent,
  signPermit,
  stakeAgent,
  wait,
} from "./fixtures.ts";

/**
 * InsurancePool against the real core contracts (TestUSDC, AgentIdentity, StakeVault, RunEscrow): a poster
 * claims coverage after each way an agent can fail a run (timeout, rejection, lost dispute).
 */
const connection = await network.create();
const { viem, networkHelpers } = connection;

const usd = (n: bigint) => n * 1_000_000n;

async function deployWithInsurance() {
  const core = await deployCore(connection);
  const { admin, relayer, agentOwner, agentOwner2 } = core.wallets;
  const pool = await viem.deployContract("InsurancePool", [
    core.usdc.address,
    core.escrow.address,
    core.identity.address,
    admin.account.address,
    relayer.account.address,
  ]);
  const agent = await mintAgent(core, agentOwner.account.address);
  await stakeAgent(core, agent, agentOwner.account.address);
  const agent2 = await mintAgent(core, agentOwner2.account.address);
  await stakeAgent(core, agent2, agentOwner2.account.address);
  return { ...core, pool, agent, agent2 };
}

type Ctx = Awaited<ReturnType<typeof deployWithInsurance>>;

/** Gasless insurance stake: the owner signs a TestUSDC permit for the pool, the relayer submits. */
async function stakeCoverage(ctx: Ctx, agentId: bigint, owner: Core["wallets"]["agentOwner"], amount: bigint) {
  const { usdc, pool, publicClient, wallets } = ctx;
  await wait(publicClient, usdc.write.mint([owner.account.address, amount], { account: owner.account }));
  const deadline = (await publicClient.getBlock()).timestamp + 3600n;
  const { v, r, s } = await signPermit(usdc, owner, { spender: pool.address, value: amount, deadline });
  await wait(
    publicClient,
    pool.write.stakeWithPermit([agentId, owner.account.address, amount, deadline, v, r, s], {
      account: wallets.relayer.account,
    }),
  );
}

async function assertInvariant(ctx: Ctx) {
  const balance = await ctx.usdc.read.balanceOf([ctx.pool.address]);
  const sum = (await ctx.pool.read.coverageOf([ctx.agent])) + (await ctx.pool.read.coverageOf([ctx.agent2]));
  assert.equal(balance, sum);
  assert.equal(await ctx.pool.read.totalCoverage(), sum);
}

describe("InsurancePool with the core contracts", () => {
  it("a timeout: the poster ends with its deposit back plus the declared damages, never the run's value twice", async () => {
    const ctx = await networkHelpers.loadFixture(deployWithInsurance);
    const { pool, escrow, vault, usdc, publicClient, agent, wallets } = ctx;
    const { poster, agentOwner } = wallets;
    await stakeCoverage(ctx, agent, agentOwner, usd(100n));
    assert.equal(await pool.read.hasCoverage([agent, usd(100n)]), true);

    const reward = usd(50n);
    const cover = usd(40n); // agreed damages: below the run's value (52.5)
    // createFundedRun mints the deposit to the poster first: `held` is what the poster held with it
    const held = (await usdc.read.balanceOf([poster.account.address])) + reward + feeOf(reward);
    const runId = await createFundedRun(ctx, poster.account.address, reward, { cover });
    await wait(publicClient, escrow.write.claim([runId, agent], { account: agentOwner.account }));
    assert.equal(await escrow.read.coverOf([runId]), cover, "fixed at funding");
    await viem.assertions.revertWithCustomErrorWithArgs(
      pool.write.claim([runId], { account: poster.account }),
      pool,
      "InsurancePoolNoFailure",
      [runId],
    );

    await networkHelpers.time.increase(7n * DAY);
    const slashed = (await vault.read.stakeOf([agent])) / 2n;
    await wait(publicClient, escrow.write.timeoutSlash([runId], { account: poster.account }));
    assert.equal((await escrow.read.failureOf([runId]))[0], agent);
    // the escrow returned the deposit and the vault paid the slash
    assert.equal(await usdc.read.balanceOf([poster.account.address]), held + slashed);

    const paid = cover - slashed;
    await viem.assertions.emitWithArgs(pool.write.claim([runId], { account: poster.account }), pool, "ClaimPaid", [
      runId,
      agent,
      getAddress(poster.account.address),
      paid,
    ]);
    assert.equal(await usdc.read.balanceOf([poster.account.address]), held + cover, "deposit back + the damages");
    assert.equal(await pool.read.coverageOf([agent]), usd(100n) - paid);
    await viem.assertions.revertWithCustomErrorWithArgs(
      pool.write.claim([runId], { account: poster.account }),
      pool,
      "InsurancePoolAlreadyClaimed",
      [runId],
    );
    await assertInvariant(ctx);
  });

  it("no cover declared, or a slash above it: the refund is all (NoCoverDeclared, NoLoss)", async () => {
    const ctx = await networkHelpers.loadFixture(deployWithInsurance);
    const { pool, escrow, vault, usdc, publicClient, agent, agent2, wallets } = ctx;
    const { poster, agentOwner, agentOwner2 } = wallets;
    await stakeCoverage(ctx, agent, agentOwner, usd(100n));
    await stakeCoverage(ctx, agent2, agentOwner2, usd(100n));
    const deposits = 2n * (usd(50n) + feeOf(usd(50n)));
    const held = (await usdc.read.balanceOf([poster.account.address])) + deposits;
    const bare = await createFundedRun(ctx, poster.account.address, usd(50n));
    const small = await createFundedRun(ctx, poster.account.address, usd(50n), { cover: 1n });
    let slashed = 0n;
    for (const [runId, agentId, owner] of [
      [bare, agent, agentOwner],
      [small, agent2, agentOwner2],
    ] as const) {
      await wait(publicClient, escrow.write.claim([runId, agentId], { account: owner.account }));
      await networkHelpers.time.increase(7n * DAY);
      slashed += (await vault.read.stakeOf([agentId])) / 2n;
      await wait(publicClient, escrow.write.timeoutSlash([runId], { account: poster.account }));
    }
    await viem.assertions.revertWithCustomErrorWithArgs(
      pool.write.claim([bare], { account: poster.account }),
      pool,
      "InsurancePoolNoCoverDeclared",
      [bare],
    );
    await viem.assertions.revertWithCustomErrorWithArgs(
      pool.write.claim([small], { account: poster.account }),
      pool,
      "InsurancePoolNoLoss",
      [small],
    );
    assert.equal(await usdc.read.balanceOf([poster.account.address]), held + slashed);
    assert.equal(await pool.read.coverageOf([agent]), usd(100n));
    assert.equal(await pool.read.coverageOf([agent2]), usd(100n));
    await assertInvariant(ctx);
  });

  it("a maxRevisions-0 rejection pays nothing (the escrow refunded it); the relayer claims a lost dispute, capped by coverage", async () => {
    const ctx = await networkHelpers.loadFixture(deployWithInsurance);
    const { pool, escrow, vault, usdc, publicClient, agent, wallets } = ctx;
    const { poster, agentOwner, relayer, other, admin } = wallets;
    await stakeCoverage(ctx, agent, agentOwner, usd(30n));
    const held = (await usdc.read.balanceOf([poster.account.address])) + usd(200n) + feeOf(usd(200n));
    const rejected = await createFundedRun(ctx, poster.account.address, usd(200n), {
      maxRevisions: 0,
      cover: usd(200n),
    });
    await wait(publicClient, escrow.write.claim([rejected, agent], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.submit([rejected, bytes32("bad work")], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.reject([rejected], { account: poster.account }));
    for (const who of [relayer, poster]) {
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([rejected], { account: who.account }),
        pool,
        "InsurancePoolLossNotVerified",
        [rejected],
      );
    }
    assert.equal(await usdc.read.balanceOf([poster.account.address]), held, "the deposit back, nothing more");

    const disputed = await createFundedRun(ctx, poster.account.address, usd(200n), {
      maxRevisions: 0,
      cover: usd(200n),
    });
    await wait(publicClient, escrow.write.claim([disputed, agent], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.submit([disputed, bytes32("bad work")], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.dispute([disputed], { account: poster.account }));
    const slashed = (await vault.read.stakeOf([agent])) / 2n;
    await wait(publicClient, escrow.write.resolve([disputed, false], { account: admin.account }));
    // the run is Open again, with the cover its agent claimed under (fixed at funding, for any later agent too)
    assert.equal(await escrow.read.coverOf([disputed]), usd(200n));
    await viem.assertions.revertWithCustomError(
      pool.write.claim([disputed], { account: other.account }),
      pool,
      "InsurancePoolUnauthorized",
    );
    const before = await usdc.read.balanceOf([poster.account.address]);
    await wait(publicClient, pool.write.claim([disputed], { account: relayer.account }));
    assert.equal(await usdc.read.balanceOf([poster.account.address]), before + usd(30n));
    assert.equal(await pool.read.coverageOf([agent]), 0n);
    // the disputed run's 210 is still in escrow (it reopened and may still be done): the poster holds its first
    // deposit, the slash and the 30 of coverage
    assert.equal(await usdc.read.balanceOf([poster.account.address]), held + slashed + usd(30n));
    await assertInvariant(ctx);
  });

  it("a reopened run keeps the cover its first agent claimed under; failed again by a second agent, it pays once", async () => {
    const ctx = await networkHelpers.loadFixture(deployWithInsurance);
    const { pool, escrow, vault, usdc, publicClient, agent, agent2, wallets } = ctx;
    const { poster, agentOwner, agentOwner2, admin } = wallets;
    await stakeCoverage(ctx, agent, agentOwner, usd(20n));
    await stakeCoverage(ctx, agent2, agentOwner2, usd(50n));
    await wait(publicClient, pool.write.requestWithdrawal([agent2, usd(50n)], { account: agentOwner2.account }));

    const reward = usd(30n);
    const cover = usd(45n);
    const runId = await createFundedRun(ctx, poster.account.address, reward, { cover });
    // agent 1 loses a dispute: the run reopens (the poster does not claim yet)
    await wait(publicClient, escrow.write.claim([runId, agent], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.submit([runId, bytes32("a")], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.dispute([runId], { account: poster.account }));
    await wait(publicClient, escrow.write.resolve([runId, false], { account: admin.account }));
    // agent 2 (whose coverage is pending withdrawal) claims the reopened run and times out
    await wait(publicClient, escrow.write.claim([runId, agent2], { account: agentOwner2.account }));
    await networkHelpers.time.increase(7n * DAY);
    const slashed = (await vault.read.stakeOf([agent2])) / 2n;
    await wait(publicClient, escrow.write.timeoutSlash([runId], { account: poster.account }));
    const before = await usdc.read.balanceOf([poster.account.address]);
    await wait(publicClient, pool.write.claim([runId], { account: poster.account }));
    const paid = cover - slashed;
    assert.equal(await usdc.read.balanceOf([poster.account.address]), before + paid);
    assert.equal(await pool.read.isClaimed([runId]), true);
    assert.equal(await pool.read.coverageOf([agent]), usd(20n), "agent 1's coverage is untouched");
    const [pending] = await pool.read.pendingWithdrawal([agent2]);
    assert.equal(pending, usd(50n) - paid);
    await viem.assertions.revertWithCustomErrorWithArgs(
      pool.write.claim([runId], { account: poster.account }),
      pool,
      "InsurancePoolAlreadyClaimed",
      [runId],
    );
    await assertInvariant(ctx);
  });
  it("coverage cannot leave while the agent holds a covered run, nor in the claim window after it failed it", async () => {
    const ctx = await networkHelpers.loadFixture(deployWithInsurance);
    const { pool, escrow, vault, usdc, publicClient, agent, wallets } = ctx;
    const { poster, agentOwner } = wallets;
    await stakeCoverage(ctx, agent, agentOwner, usd(100n));
    const cover = usd(80n);
    const runId = await createFundedRun(ctx, poster.account.address, usd(50n), { maxRevisions: 3, cover });
    await wait(publicClient, escrow.write.claim([runId, agent], { account: agentOwner.account }));
    // The attack: ask for everything back at claim time, then drag the run past the 14-day cooldown.
    await wait(publicClient, pool.write.requestWithdrawal([agent, usd(100n)], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.submit([runId, bytes32("draft")], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.requestRevision([runId], { account: poster.account }));
    await networkHelpers.time.increase(15n * DAY);
    await viem.assertions.revertWithCustomErrorWithArgs(
      pool.write.withdraw([agent], { account: agentOwner.account }),
      pool,
      "InsurancePoolAgentHoldsRuns",
      [agent, 1n],
    );

    const slashed = (await vault.read.stakeOf([agent])) / 2n;
    await wait(publicClient, escrow.write.timeoutSlash([runId], { account: poster.account }));
    const failedAt = (await publicClient.getBlock()).timestamp; // automine: the slash's block
    assert.equal(await escrow.read.lastVerifiedFailureAt([agent]), failedAt);
    assert.equal(await vault.read.locksOf([agent]), 0n);
    // The run ended, but its poster has not claimed yet: the agent's next transaction still cannot take the money.
    await viem.assertions.revertWithCustomErrorWithArgs(
      pool.write.withdraw([agent], { account: agentOwner.account }),
      pool,
      "InsurancePoolClaimWindowOpen",
      [agent, failedAt + 7n * DAY],
    );
    const posterBefore = await usdc.read.balanceOf([poster.account.address]);
    await wait(publicClient, pool.write.claim([runId], { account: poster.account }));
    const paid = cover - slashed;
    assert.equal(await usdc.read.balanceOf([poster.account.address]), posterBefore + paid);

    // After the window the rest is the owner's again (the pending amount was capped by the claim).
    await networkHelpers.time.increaseTo(failedAt + 7n * DAY - 2n); // the next block: the window's last second
    await viem.assertions.revertWithCustomError(
      pool.write.withdraw([agent], { account: agentOwner.account }),
      pool,
      "InsurancePoolClaimWindowOpen",
    );
    await networkHelpers.mine(); // refused calls mine nothing: the next block is the window's end
    const ownerBefore = await usdc.read.balanceOf([agentOwner.account.address]);
    await wait(publicClient, pool.write.withdraw([agent], { account: agentOwner.account }));
    assert.equal(await usdc.read.balanceOf([agentOwner.account.address]), ownerBefore + usd(100n) - paid);
    assert.equal(await pool.read.coverageOf([agent]), 0n);
    await assertInvariant(ctx);
  });
});

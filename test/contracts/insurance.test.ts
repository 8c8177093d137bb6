import assert from "node:assert/strict";
import { network } from "hardhat";
import { type Address, encodeFunctionData, getAddress, parseUnits, zeroAddress } from "viem";
import { prng, signPermit } from "./fixtures.ts";

const { viem, networkHelpers } = await network.create();
const { loadFixture, time } = networkHelpers;

const usd = (n: number | string) => parseUnits(String(n), 6);
const COOLDOWN = 14n * 24n * 60n * 60n;
/** MockERC20's EIP-712 domain (its permit is OpenZeppelin's ERC20Permit). */
const MOCK_USDC_DOMAIN = { name: "Mock USD Coin", version: "1" };

async function deployPool() {
  const ws = await viem.getWalletClients();
  if (ws.length < 6) throw new Error("need at least 6 accounts");
  const [admin, relayer, agentOwner, poster, other, posterB] = [ws[0]!, ws[1]!, ws[2]!, ws[3]!, ws[4]!, ws[5]!];
  const publicClient = await viem.getPublicClient();
  const usdc = await viem.deployContract("MockERC20");
  const identity = await viem.deployContract("MockIdentity");
  const escrow = await viem.deployContract("MockRunEscrow");
  const pool = await viem.deployContract("InsurancePool", [
    usdc.address,
    escrow.address,
    identity.address,
    admin.account.address,
    relayer.account.address,
  ]);
  // agent 1 -> agentOwner, agent 2 -> other
  await identity.write.mint([agentOwner.account.address]);
  await identity.write.mint([other.account.address]);
  for (const w of [agentOwner, poster, other, posterB]) {
    await usdc.write.mint([w.account.address, usd(1_000_000)]);
    await usdc.write.approve([pool.address, 2n ** 255n], { account: w.account });
  }
  return { pool, usdc, identity, escrow, publicClient, admin, relayer, agentOwner, poster, other, posterB };
}

type Ctx = Awaited<ReturnType<typeof deployPool>>;

/** Registers run `runId` on the mock escrow as failed by `agentId`, posted by `poster`. */
/** Failure kinds of IRunEscrow.FailureKind. */
const Kind = { Rejected: 1, TimedOut: 2, DisputeLost: 3 } as const;

/**
 * Records a verified failure (a timeout with nothing slashed to the poster unless given); returns reward + fee.
 * The run's cover, fixed by the escrow at funding, is `cover` (default reward + fee; 0: none) unless the run already
 * has one (a reopened run keeps its first cover).
 */
async function failRun(
  ctx: Pick<Ctx, "escrow" | "pool">,
  runId: bigint,
  agentId: bigint,
  poster: Address,
  reward: bigint,
  failure: { kind?: number; slashed?: bigint; cover?: bigint } = {},
) {
  const fee = (reward * 500n + 9_999n) / 10_000n;
  await ctx.escrow.write.setRun([runId, poster, reward, fee, agentId]);
  const cover = failure.cover ?? reward + fee;
  // The escrow fixed the cover at funding: a reopened run that fails again keeps its first one.
  if (cover > 0n && (await ctx.escrow.read.coverOf([runId])) === 0n) {
    const [failed] = await ctx.escrow.read.failureOf([runId]);
    if (failed === 0n) await ctx.escrow.write.setCover([runId, cover]);
  }
  await ctx.escrow.write.setFailure([runId, agentId, failure.kind ?? Kind.TimedOut, failure.slashed ?? 0n]);
  return reward + fee;
}

async function assertInvariant(ctx: Ctx, agentIds: bigint[]) {
  const balance = await ctx.usdc.read.balanceOf([ctx.pool.address]);
  let sum = 0n;
  for (const id of agentIds) sum += await ctx.pool.read.coverageOf([id]);
  assert.equal(balance, sum, "pool balance == sum of coverage");
  assert.equal(await ctx.pool.read.totalCoverage(), sum, "totalCoverage == sum of coverage");
}

describe("InsurancePool", () => {
  describe("deployment", () => {
    it("sets immutables, roles and the 14-day cooldown", async () => {
      const { pool, usdc, escrow, identity, admin, relayer } = await loadFixture(deployPool);
      assert.equal(await pool.read.withdrawalCooldown(), COOLDOWN);
      assert.equal(await pool.read.usdc(), getAddress(usdc.address));
      assert.equal(await pool.read.escrow(), getAddress(escrow.address));
      assert.equal(await pool.read.identity(), getAddress(identity.address));
      assert.equal(await pool.read.hasRole([await pool.read.DEFAULT_ADMIN_ROLE(), admin.account.address]), true);
      assert.equal(await pool.read.hasRole([await pool.read.RELAYER_ROLE(), relayer.account.address]), true);
      assert.equal(await pool.read.totalCoverage(), 0n);
    });

    it("rejects zero addresses (InsurancePoolZeroAddress)", async () => {
      const { pool, usdc, escrow, identity, admin } = await loadFixture(deployPool);
      await viem.assertions.revertWithCustomError(
        viem.deployContract("InsurancePool", [
          zeroAddress,
          escrow.address,
          identity.address,
          admin.account.address,
          zeroAddress,
        ]),
        pool,
        "InsurancePoolZeroAddress",
      );
      await viem.assertions.revertWithCustomError(
        viem.deployContract("InsurancePool", [
          usdc.address,
          escrow.address,
          identity.address,
          zeroAddress,
          zeroAddress,
        ]),
        pool,
        "InsurancePoolZeroAddress",
      );
    });
  });

  describe("stake", () => {
    it("pulls USDC from the caller into the agent's coverage and emits CoverageStaked", async () => {
      const ctx = await loadFixture(deployPool);
      const { pool, usdc, poster } = ctx;
      const before = await usdc.read.balanceOf([poster.account.address]);
      await viem.assertions.emitWithArgs(
        pool.write.stake([1n, usd(50)], { account: poster.account }),
        pool,
        "CoverageStaked",
        [1n, getAddress(poster.account.address), usd(50)],
      );
      assert.equal(await pool.read.coverageOf([1n]), usd(50));
      assert.equal(await usdc.read.balanceOf([poster.account.address]), before - usd(50));
      assert.equal(await pool.read.hasCoverage([1n, usd(50)]), true);
      assert.equal(await pool.read.hasCoverage([1n, usd(50) + 1n]), false);
      await pool.write.stake([1n, usd(25)], { account: ctx.agentOwner.account });
      assert.equal(await pool.read.coverageOf([1n]), usd(75));
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("rejects a zero amount (InsurancePoolZeroAmount)", async () => {
      const { pool, agentOwner } = await loadFixture(deployPool);
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.stake([1n, 0n], { account: agentOwner.account }),
        pool,
        "InsurancePoolZeroAmount",
        [],
      );
    });

    it("rejects an unknown agent id", async () => {
      const { pool, identity, agentOwner } = await loadFixture(deployPool);
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.stake([99n, usd(1)], { account: agentOwner.account }),
        identity,
        "ERC721NonexistentToken",
        [99n],
      );
    });

    it("stakeWithPermit: the relayer stakes with the payer's EIP-2612 permit", async () => {
      const ctx = await loadFixture(deployPool);
      const { pool, usdc, relayer, agentOwner } = ctx;
      await usdc.write.approve([pool.address, 0n], { account: agentOwner.account });
      const deadline = BigInt(await time.latest()) + 3600n;
      const { v, r, s } = await signPermit(ctx.usdc, agentOwner, {
        spender: ctx.pool.address,
        value: usd(40),
        deadline,
        domain: MOCK_USDC_DOMAIN,
      });
      await viem.assertions.emitWithArgs(
        pool.write.stakeWithPermit([1n, agentOwner.account.address, usd(40), deadline, v, r, s], {
          account: relayer.account,
        }),
        pool,
        "CoverageStaked",
        [1n, getAddress(agentOwner.account.address), usd(40)],
      );
      assert.equal(await pool.read.coverageOf([1n]), usd(40));
      assert.equal(await usdc.read.allowance([agentOwner.account.address, pool.address]), 0n);
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("stakeWithPermit: a failing permit reverts; the relayer cannot pull a standing allowance (balances to the unit)", async () => {
      const ctx = await loadFixture(deployPool);
      const { pool, usdc, relayer, agentOwner, other } = ctx;
      const deadline = BigInt(await time.latest()) + 3600n;
      const { v, r, s } = await signPermit(ctx.usdc, agentOwner, {
        spender: ctx.pool.address,
        value: usd(10),
        deadline,
        domain: MOCK_USDC_DOMAIN,
      });
      // someone submits the permit directly first: the relayed stake reverts instead of spending that allowance
      await usdc.write.permit([agentOwner.account.address, pool.address, usd(10), deadline, v, r, s], {
        account: other.account,
      });
      const [payerBefore, poolBefore] = [
        await usdc.read.balanceOf([agentOwner.account.address]),
        await usdc.read.balanceOf([pool.address]),
      ];
      await viem.assertions.revertWithCustomError(
        pool.write.stakeWithPermit([2n, agentOwner.account.address, usd(10), deadline, v, r, s], {
          account: relayer.account,
        }),
        usdc,
        "ERC2612InvalidSigner",
      );
      // a permit signed by someone else does not unlock the payer's allowance either
      const forged = await signPermit(ctx.usdc, other, {
        spender: ctx.pool.address,
        value: usd(10),
        deadline,
        domain: MOCK_USDC_DOMAIN,
      });
      await viem.assertions.revertWithCustomError(
        pool.write.stakeWithPermit([2n, agentOwner.account.address, usd(10), deadline, forged.v, forged.r, forged.s], {
          account: relayer.account,
        }),
        usdc,
        "ERC2612InvalidSigner",
      );
      assert.equal(await usdc.read.balanceOf([agentOwner.account.address]), payerBefore);
      assert.equal(await usdc.read.balanceOf([pool.address]), poolBefore);
      assert.equal(await pool.read.coverageOf([2n]), 0n);
    });

    it("stakeWithPermit: only the payer or the relayer may submit (InsurancePoolUnauthorized)", async () => {
      const ctx = await loadFixture(deployPool);
      const { pool, agentOwner, other } = ctx;
      const deadline = BigInt(await time.latest()) + 3600n;
      const { v, r, s } = await signPermit(ctx.usdc, agentOwner, {
        spender: ctx.pool.address,
        value: usd(10),
        deadline,
        domain: MOCK_USDC_DOMAIN,
      });
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.stakeWithPermit([2n, agentOwner.account.address, usd(10), deadline, v, r, s], {
          account: other.account,
        }),
        pool,
        "InsurancePoolUnauthorized",
        [getAddress(other.account.address)],
      );
      // the payer itself may submit
      await pool.write.stakeWithPermit([1n, agentOwner.account.address, usd(10), deadline, v, r, s], {
        account: agentOwner.account,
      });
      assert.equal(await pool.read.coverageOf([1n]), usd(10));
    });

    it("stakeWithPermit: an invalid permit reverts in the token", async () => {
      const ctx = await loadFixture(deployPool);
      const { pool, usdc, relayer, agentOwner } = ctx;
      await usdc.write.approve([pool.address, 0n], { account: agentOwner.account });
      const deadline = BigInt(await time.latest()) + 3600n;
      const { v, r, s } = await signPermit(ctx.usdc, agentOwner, {
        spender: ctx.pool.address,
        value: usd(10),
        deadline,
        domain: MOCK_USDC_DOMAIN,
      });
      await viem.assertions.revertWithCustomError(
        pool.write.stakeWithPermit([1n, agentOwner.account.address, usd(11), deadline, v, r, s], {
          account: relayer.account,
        }),
        usdc,
        "ERC2612InvalidSigner",
      );
    });
  });

  describe("withdrawals", () => {
    async function staked() {
      const ctx = await deployPool();
      await ctx.pool.write.stake([1n, usd(100)], { account: ctx.agentOwner.account });
      return ctx;
    }

    it("requestWithdrawal by the owner sets a pending withdrawal with a 14-day cooldown", async () => {
      const ctx = await loadFixture(staked);
      const { pool, agentOwner } = ctx;
      const hash = await pool.write.requestWithdrawal([1n, usd(60)], { account: agentOwner.account });
      const receipt = await ctx.publicClient.waitForTransactionReceipt({ hash });
      const block = await ctx.publicClient.getBlock({ blockNumber: receipt.blockNumber });
      const availableAt = block.timestamp + COOLDOWN;
      await viem.assertions.emitWithArgs(Promise.resolve(hash), pool, "CoverageWithdrawalRequested", [
        1n,
        usd(60),
        availableAt,
      ]);
      assert.deepEqual(await pool.read.pendingWithdrawal([1n]), [usd(60), availableAt]);
      // pending coverage does not count for hasCoverage, but is still coverage
      assert.equal(await pool.read.coverageOf([1n]), usd(100));
      assert.equal(await pool.read.hasCoverage([1n, usd(40)]), true);
      assert.equal(await pool.read.hasCoverage([1n, usd(41)]), false);
    });

    it("rejects strangers (InsurancePoolUnauthorized), zero, too much and a second pending request", async () => {
      const { pool, agentOwner, other } = await loadFixture(staked);
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.requestWithdrawal([1n, usd(1)], { account: other.account }),
        pool,
        "InsurancePoolUnauthorized",
        [getAddress(other.account.address)],
      );
      await viem.assertions.revertWithCustomError(
        pool.write.requestWithdrawal([1n, 0n], { account: agentOwner.account }),
        pool,
        "InsurancePoolZeroAmount",
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.requestWithdrawal([1n, usd(101)], { account: agentOwner.account }),
        pool,
        "InsurancePoolInsufficientCoverage",
        [1n, usd(100), usd(101)],
      );
      await pool.write.requestWithdrawal([1n, usd(10)], { account: agentOwner.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.requestWithdrawal([1n, usd(10)], { account: agentOwner.account }),
        pool,
        "InsurancePoolWithdrawalPending",
        [1n],
      );
    });

    it("withdraw waits the cooldown, then pays the token owner", async () => {
      const ctx = await loadFixture(staked);
      const { pool, usdc, agentOwner, other } = ctx;
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.withdraw([1n], { account: agentOwner.account }),
        pool,
        "InsurancePoolNoWithdrawal",
        [1n],
      );
      await pool.write.requestWithdrawal([1n, usd(60)], { account: agentOwner.account });
      const [, availableAt] = await pool.read.pendingWithdrawal([1n]);
      await time.increase(COOLDOWN - 10n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.withdraw([1n], { account: agentOwner.account }),
        pool,
        "InsurancePoolCooldownActive",
        [1n, availableAt],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.withdraw([1n], { account: other.account }),
        pool,
        "InsurancePoolUnauthorized",
        [getAddress(other.account.address)],
      );
      await time.increaseTo(availableAt);
      const before = await usdc.read.balanceOf([agentOwner.account.address]);
      await viem.assertions.emitWithArgs(
        pool.write.withdraw([1n], { account: agentOwner.account }),
        pool,
        "CoverageWithdrawn",
        [1n, getAddress(agentOwner.account.address), usd(60)],
      );
      assert.equal(await usdc.read.balanceOf([agentOwner.account.address]), before + usd(60));
      assert.equal(await pool.read.coverageOf([1n]), usd(40));
      assert.deepEqual(await pool.read.pendingWithdrawal([1n]), [0n, 0n]);
      await assertInvariant(ctx, [1n, 2n]);
      // a new request is possible afterwards
      await pool.write.requestWithdrawal([1n, usd(40)], { account: agentOwner.account });
    });

    it("withdraw waits while the agent holds runs and for CLAIM_WINDOW after its last verified failure", async () => {
      const ctx = await loadFixture(staked);
      const { pool, usdc, escrow, agentOwner } = ctx;
      await pool.write.requestWithdrawal([1n, usd(60)], { account: agentOwner.account });
      const [, availableAt] = await pool.read.pendingWithdrawal([1n]);
      await time.increaseTo(availableAt);
      await escrow.write.setLocks([1n, 2n]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.withdraw([1n], { account: agentOwner.account }),
        pool,
        "InsurancePoolAgentHoldsRuns",
        [1n, 2n],
      );
      await escrow.write.setLocks([1n, 0n]);
      const window = await pool.read.CLAIM_WINDOW();
      assert.equal(window, 7n * 24n * 3600n);
      const failedAt = BigInt(await time.latest());
      await escrow.write.setLastVerifiedFailureAt([1n, failedAt]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.withdraw([1n], { account: agentOwner.account }),
        pool,
        "InsurancePoolClaimWindowOpen",
        [1n, failedAt + window],
      );
      await time.increaseTo(failedAt + window - 2n); // the next block is the last second of the window
      await viem.assertions.revertWithCustomError(
        pool.write.withdraw([1n], { account: agentOwner.account }),
        pool,
        "InsurancePoolClaimWindowOpen",
      );
      await networkHelpers.mine(); // refused calls mine nothing: the next block is the window's end
      const before = await usdc.read.balanceOf([agentOwner.account.address]);
      await pool.write.withdraw([1n], { account: agentOwner.account });
      assert.equal(await usdc.read.balanceOf([agentOwner.account.address]), before + usd(60));
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("the relayer may request and withdraw for the owner; funds go to the token owner", async () => {
      const ctx = await loadFixture(staked);
      const { pool, usdc, relayer, agentOwner } = ctx;
      await pool.write.requestWithdrawal([1n, usd(100)], { account: relayer.account });
      await time.increase(COOLDOWN);
      const ownerBefore = await usdc.read.balanceOf([agentOwner.account.address]);
      const relayerBefore = await usdc.read.balanceOf([relayer.account.address]);
      await pool.write.withdraw([1n], { account: relayer.account });
      assert.equal(await usdc.read.balanceOf([agentOwner.account.address]), ownerBefore + usd(100));
      assert.equal(await usdc.read.balanceOf([relayer.account.address]), relayerBefore);
      assert.equal(await pool.read.coverageOf([1n]), 0n);
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("pays whoever owns the token at withdrawal time", async () => {
      const ctx = await loadFixture(staked);
      const { pool, usdc, identity, agentOwner, other } = ctx;
      await pool.write.requestWithdrawal([1n, usd(30)], { account: agentOwner.account });
      await identity.write.transferFrom([agentOwner.account.address, other.account.address, 1n], {
        account: agentOwner.account,
      });
      await time.increase(COOLDOWN);
      await viem.assertions.revertWithCustomError(
        pool.write.withdraw([1n], { account: agentOwner.account }),
        pool,
        "InsurancePoolUnauthorized",
      );
      const before = await usdc.read.balanceOf([other.account.address]);
      await pool.write.withdraw([1n], { account: other.account });
      assert.equal(await usdc.read.balanceOf([other.account.address]), before + usd(30));
    });
  });

  describe("claim", () => {
    async function stakedAndFailed() {
      const ctx = await deployPool();
      await ctx.pool.write.stake([1n, usd(100)], { account: ctx.agentOwner.account });
      const owed = await failRun(ctx, 7n, 1n, ctx.poster.account.address, usd(40)); // 40 + 2 fee
      return { ...ctx, owed };
    }

    it("pays the declared cover (here reward + fee) to the poster after a timeout and emits ClaimPaid", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      const { pool, usdc, poster, owed } = ctx;
      assert.equal(owed, usd(42));
      const before = await usdc.read.balanceOf([poster.account.address]);
      const { result } = await ctx.publicClient.simulateContract({
        address: pool.address,
        abi: pool.abi,
        functionName: "claim",
        args: [7n],
        account: poster.account,
      });
      assert.equal(result, usd(42));
      await viem.assertions.emitWithArgs(pool.write.claim([7n], { account: poster.account }), pool, "ClaimPaid", [
        7n,
        1n,
        getAddress(poster.account.address),
        usd(42),
      ]);
      assert.equal(await usdc.read.balanceOf([poster.account.address]), before + usd(42));
      assert.equal(await pool.read.coverageOf([1n]), usd(58));
      assert.equal(await pool.read.isClaimed([7n]), true);
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("pays agreed damages, not the refunded deposit: min(cover, coverage), whatever the run's value", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      const { pool, usdc, poster } = ctx;
      // a 40 USDC run whose poster declared 25 of damages: the escrow refunded the 42, insurance pays the 25
      await failRun(ctx, 20n, 1n, poster.account.address, usd(40), { cover: usd(25) });
      const before = await usdc.read.balanceOf([poster.account.address]);
      await viem.assertions.emitWithArgs(pool.write.claim([20n], { account: poster.account }), pool, "ClaimPaid", [
        20n,
        1n,
        getAddress(poster.account.address),
        usd(25),
      ]);
      assert.equal(await usdc.read.balanceOf([poster.account.address]), before + usd(25));
      // a 1 USDC run with 500 declared: capped by the 75 of coverage left
      await failRun(ctx, 21n, 1n, poster.account.address, usd(1), { cover: usd(500) });
      await pool.write.claim([21n], { account: poster.account });
      assert.equal(await usdc.read.balanceOf([poster.account.address]), before + usd(100));
      assert.equal(await pool.read.coverageOf([1n]), 0n);
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("a run without a declared cover pays nothing (InsurancePoolNoCoverDeclared)", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      for (const kind of [Kind.TimedOut, Kind.DisputeLost]) {
        const runId = 30n + BigInt(kind);
        await failRun(ctx, runId, 1n, ctx.poster.account.address, usd(40), { kind, cover: 0n });
        await viem.assertions.revertWithCustomErrorWithArgs(
          ctx.pool.write.claim([runId], { account: ctx.poster.account }),
          ctx.pool,
          "InsurancePoolNoCoverDeclared",
          [runId],
        );
      }
      assert.equal(await ctx.pool.read.coverageOf([1n]), usd(100));
    });

    it("pays at most the remaining coverage", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      const { pool, usdc, poster } = ctx;
      await failRun(ctx, 8n, 1n, poster.account.address, usd(1000));
      const before = await usdc.read.balanceOf([poster.account.address]);
      await pool.write.claim([8n], { account: poster.account });
      assert.equal(await usdc.read.balanceOf([poster.account.address]), before + usd(100));
      assert.equal(await pool.read.coverageOf([1n]), 0n);
      // nothing left for the next failed run
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([7n], { account: poster.account }),
        pool,
        "InsurancePoolNoCoverage",
        [1n],
      );
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("rejects a second claim for the same run (InsurancePoolAlreadyClaimed)", async () => {
      const { pool, poster, relayer } = await loadFixture(stakedAndFailed);
      await pool.write.claim([7n], { account: poster.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([7n], { account: poster.account }),
        pool,
        "InsurancePoolAlreadyClaimed",
        [7n],
      );
      await viem.assertions.revertWithCustomError(
        pool.write.claim([7n], { account: relayer.account }),
        pool,
        "InsurancePoolAlreadyClaimed",
      );
    });

    it("pays once per run, even when another agent fails the reopened run later", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      const { pool, poster, other } = ctx;
      await pool.write.claim([7n], { account: poster.account });
      await pool.write.stake([2n, usd(10)], { account: other.account });
      await failRun(ctx, 7n, 2n, poster.account.address, usd(40), { kind: Kind.DisputeLost });
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.claim([7n], { account: poster.account }),
        pool,
        "InsurancePoolAlreadyClaimed",
        [7n],
      );
      assert.equal(await pool.read.coverageOf([2n]), usd(10));
    });

    it("a rejection is not a verified loss (InsurancePoolLossNotVerified)", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      await failRun(ctx, 12n, 1n, ctx.poster.account.address, usd(40), { kind: Kind.Rejected });
      await viem.assertions.revertWithCustomErrorWithArgs(
        ctx.pool.write.claim([12n], { account: ctx.poster.account }),
        ctx.pool,
        "InsurancePoolLossNotVerified",
        [12n],
      );
      assert.equal(await ctx.pool.read.isClaimed([12n]), false);
    });

    it("pays the loss net of the stake slashed to the poster; nothing once the slash covers it", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      const { pool, usdc, poster } = ctx;
      await failRun(ctx, 13n, 1n, poster.account.address, usd(40), { kind: Kind.DisputeLost, slashed: usd(10) });
      const before = await usdc.read.balanceOf([poster.account.address]);
      await viem.assertions.emitWithArgs(pool.write.claim([13n], { account: poster.account }), pool, "ClaimPaid", [
        13n,
        1n,
        getAddress(poster.account.address),
        usd(32),
      ]);
      assert.equal(await usdc.read.balanceOf([poster.account.address]), before + usd(32));
      for (const slashed of [usd(42), usd(42) + 1n]) {
        await failRun(ctx, 14n, 1n, poster.account.address, usd(40), { slashed });
        await viem.assertions.revertWithCustomErrorWithArgs(
          pool.write.claim([14n], { account: poster.account }),
          pool,
          "InsurancePoolNoLoss",
          [14n],
        );
      }
      await failRun(ctx, 14n, 1n, poster.account.address, usd(40), { slashed: usd(42) - 1n });
      await viem.assertions.emitWithArgs(pool.write.claim([14n], { account: poster.account }), pool, "ClaimPaid", [
        14n,
        1n,
        getAddress(poster.account.address),
        1n,
      ]);
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("rejects runs without a failed agent (InsurancePoolNoFailure)", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      await ctx.escrow.write.setRun([9n, ctx.poster.account.address, usd(10), usd(0.5), 1n]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        ctx.pool.write.claim([9n], { account: ctx.poster.account }),
        ctx.pool,
        "InsurancePoolNoFailure",
        [9n],
      );
    });

    it("only the poster or the relayer may claim; the relayer's claim pays the poster", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      const { pool, usdc, poster, other, agentOwner, relayer } = ctx;
      for (const w of [other, agentOwner]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          pool.write.claim([7n], { account: w.account }),
          pool,
          "InsurancePoolUnauthorized",
          [getAddress(w.account.address)],
        );
      }
      const before = await usdc.read.balanceOf([poster.account.address]);
      await pool.write.claim([7n], { account: relayer.account });
      assert.equal(await usdc.read.balanceOf([poster.account.address]), before + usd(42));
      assert.equal(await usdc.read.balanceOf([relayer.account.address]), 0n);
    });

    it("rejects agents without coverage (InsurancePoolNoCoverage)", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      await failRun(ctx, 11n, 2n, ctx.poster.account.address, usd(5));
      await viem.assertions.revertWithCustomErrorWithArgs(
        ctx.pool.write.claim([11n], { account: ctx.poster.account }),
        ctx.pool,
        "InsurancePoolNoCoverage",
        [2n],
      );
    });

    it("coverage pending withdrawal stays claimable and the pending amount shrinks to what is left", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      const { pool, usdc, poster, agentOwner } = ctx;
      await pool.write.requestWithdrawal([1n, usd(90)], { account: agentOwner.account });
      const [, availableAt] = await pool.read.pendingWithdrawal([1n]);
      await pool.write.claim([7n], { account: poster.account }); // pays 42 -> 58 left
      assert.equal(await pool.read.coverageOf([1n]), usd(58));
      assert.deepEqual(await pool.read.pendingWithdrawal([1n]), [usd(58), availableAt]);
      assert.equal(await pool.read.hasCoverage([1n, 1n]), false);
      await time.increaseTo(availableAt);
      const before = await usdc.read.balanceOf([agentOwner.account.address]);
      await pool.write.withdraw([1n], { account: agentOwner.account });
      assert.equal(await usdc.read.balanceOf([agentOwner.account.address]), before + usd(58));
      assert.equal(await pool.read.coverageOf([1n]), 0n);
      await assertInvariant(ctx, [1n, 2n]);
    });

    it("a pending withdrawal below the remaining coverage is untouched; a drained one is cleared", async () => {
      const ctx = await loadFixture(stakedAndFailed);
      const { pool, poster, agentOwner } = ctx;
      await pool.write.requestWithdrawal([1n, usd(20)], { account: agentOwner.account });
      const [, availableAt] = await pool.read.pendingWithdrawal([1n]);
      await pool.write.claim([7n], { account: poster.account }); // 58 left >= 20
      assert.deepEqual(await pool.read.pendingWithdrawal([1n]), [usd(20), availableAt]);
      await failRun(ctx, 8n, 1n, poster.account.address, usd(500));
      await pool.write.claim([8n], { account: poster.account }); // drains
      assert.deepEqual(await pool.read.pendingWithdrawal([1n]), [0n, 0n]);
      await time.increase(COOLDOWN);
      await viem.assertions.revertWithCustomErrorWithArgs(
        pool.write.withdraw([1n], { account: agentOwner.account }),
        pool,
        "InsurancePoolNoWithdrawal",
        [1n],
      );
      await assertInvariant(ctx, [1n, 2n]);
    });
  });

  describe("reentrancy", () => {
    it("a token calling back into the pool during a transfer hits the guard", async () => {
      const { escrow, identity, admin, relayer, agentOwner, poster } = await loadFixture(deployPool);
      const token = await viem.deployContract("MockReentrantERC20");
      const pool = await viem.deployContract("InsurancePool", [
        token.address,
        escrow.address,
        identity.address,
        admin.account.address,
        relayer.account.address,
      ]);
      await token.write.mint([agentOwner.account.address, usd(100)]);
      await token.write.approve([pool.address, usd(100)], { account: agentOwner.account });
      await pool.write.stake([1n, usd(50)], { account: agentOwner.account });
      await failRun({ escrow, pool } as never, 5n, 1n, poster.account.address, usd(10));
      // during the claim payout the token re-enters claim() (or stake()) on the pool
      for (const data of [
        encodeFunctionData({ abi: pool.abi, functionName: "claim", args: [5n] }),
        encodeFunctionData({ abi: pool.abi, functionName: "stake", args: [1n, 1n] }),
      ]) {
        await token.write.setHook([pool.address, data]);
        await viem.assertions.revertWithCustomError(
          pool.write.claim([5n], { account: poster.account }),
          pool,
          "ReentrancyGuardReentrantCall",
        );
      }
      await token.write.setHook([zeroAddress, "0x"]);
      await pool.write.claim([5n], { account: poster.account });
      assert.equal(await pool.read.coverageOf([1n]), usd(50) - usd(10.5));
    });
  });

  describe("invariant: pool balance == sum of coverage", () => {
    for (const seed of [1, 42, 20260501]) {
      it(`holds over a random sequence of stakes, withdrawals and claims (seed ${seed})`, async () => {
        const ctx = await loadFixture(deployPool);
        const { pool, identity, agentOwner, other, poster, posterB } = ctx;
        // agents 1..4: owners alternate between agentOwner and other
        await identity.write.mint([agentOwner.account.address]);
        await identity.write.mint([other.account.address]);
        const agents = [1n, 2n, 3n, 4n];
        const ownerOf = (id: bigint) => (id % 2n === 1n ? agentOwner : other);
        const posters = [poster, posterB];
        const rand = prng(seed).next;
        const pick = <T>(xs: T[]): T => xs[Math.floor(rand() * xs.length)]!;
        const amount = () => usd((Math.floor(rand() * 20_000) + 1) / 100); // 0.01 .. 200 USDC

        const cov = new Map<bigint, bigint>(agents.map((a) => [a, 0n]));
        const pending = new Map<bigint, { amount: bigint; at: bigint }>();
        const claimed = new Set<string>();
        let runId = 0n;
        const counts = { stake: 0, request: 0, withdraw: 0, claim: 0, rejected: 0 };

        for (let step = 0; step < 100; step++) {
          const op = rand();
          const agent = pick(agents);
          if (op < 0.35) {
            const amt = amount();
            await pool.write.stake([agent, amt], { account: pick(posters).account });
            cov.set(agent, cov.get(agent)! + amt);
            counts.stake++;
          } else if (op < 0.55) {
            const c = cov.get(agent)!;
            const amt = c === 0n ? 1n : (c * BigInt(Math.floor(rand() * 100) + 1)) / 100n || 1n;
            const call = pool.write.requestWithdrawal([agent, amt], { account: ownerOf(agent).account });
            if (pending.has(agent) || amt > c) {
              const err = pending.has(agent) ? "InsurancePoolWithdrawalPending" : "InsurancePoolInsufficientCoverage";
              await viem.assertions.revertWithCustomError(call, pool, err);
              counts.rejected++;
            } else {
              const hash = await call;
              const r = await ctx.publicClient.waitForTransactionReceipt({ hash });
              const b = await ctx.publicClient.getBlock({ blockNumber: r.blockNumber });
              pending.set(agent, { amount: amt, at: b.timestamp + COOLDOWN });
              counts.request++;
            }
          } else if (op < 0.7) {
            if (rand() < 0.7) await time.increase(BigInt(Math.floor(rand() * 20 * 86400)));
            const now = BigInt(await time.latest()) + 1n; // next block's timestamp
            const p = pending.get(agent);
            const call = pool.write.withdraw([agent], { account: ownerOf(agent).account });
            if (!p || now < p.at) {
              const err = p ? "InsurancePoolCooldownActive" : "InsurancePoolNoWithdrawal";
              await viem.assertions.revertWithCustomError(call, pool, err);
              counts.rejected++;
            } else {
              await call;
              cov.set(agent, cov.get(agent)! - p.amount);
              pending.delete(agent);
              counts.withdraw++;
            }
          } else {
            // a new failed run, or a retry of an earlier one
            const retry = runId > 0n && rand() < 0.2;
            const id = retry ? BigInt(Math.floor(rand() * Number(runId))) + 1n : ++runId;
            const who = pick(posters);
            if (!retry) {
              const kind = rand() < 0.15 ? Kind.Rejected : rand() < 0.5 ? Kind.TimedOut : Kind.DisputeLost;
              const reward = amount();
              // the slash to the poster: none, part of the run's value, or all of it (and more)
              const slashed = kind === Kind.Rejected ? 0n : pick([0n, reward / 3n, reward * 2n]);
              // the poster's declared damages: none, below or above the run's value
              const cover = pick([0n, reward / 2n + 1n, reward * 3n]);
              await failRun(ctx, id, agent, who.account.address, reward, { kind, slashed, cover });
            }
            const run = await ctx.escrow.read.getRun([id]);
            const [failed, kind, slashed] = await ctx.escrow.read.failureOf([id]);
            const key = `${id}`;
            const c = cov.get(failed)!;
            const cover = await ctx.escrow.read.coverOf([id]);
            const call = pool.write.claim([id], { account: rand() < 0.5 ? ctx.relayer.account : posterOf(run.poster) });
            const err =
              kind === Kind.Rejected
                ? "InsurancePoolLossNotVerified"
                : claimed.has(key)
                  ? "InsurancePoolAlreadyClaimed"
                  : cover === 0n
                    ? "InsurancePoolNoCoverDeclared"
                    : slashed >= cover
                      ? "InsurancePoolNoLoss"
                      : c === 0n
                        ? "InsurancePoolNoCoverage"
                        : null;
            if (err) {
              await viem.assertions.revertWithCustomError(call, pool, err);
              counts.rejected++;
            } else {
              await call;
              const loss = cover - slashed;
              const paid = loss < c ? loss : c;
              const left = c - paid;
              cov.set(failed, left);
              const p = pending.get(failed);
              if (p && p.amount > left) {
                if (left === 0n) pending.delete(failed);
                else p.amount = left;
              }
              claimed.add(key);
              counts.claim++;
            }
          }
          await assertInvariant(ctx, agents);
          for (const a of agents) {
            assert.equal(await pool.read.coverageOf([a]), cov.get(a), `coverage of ${a} at step ${step}`);
            const p = pending.get(a);
            const [pAmount] = await pool.read.pendingWithdrawal([a]);
            assert.equal(pAmount, p?.amount ?? 0n, `pending of ${a} at step ${step}`);
          }
        }
        // every operation kind must have been exercised successfully
        for (const [k, n] of Object.entries(counts)) assert.ok(n > 0, `${k} exercised (seed ${seed})`);

        function posterOf(addr: Address) {
          return posters.find((w) => getAddress(w.account.address) === getAddress(addr))!.account;
        }
      });
    }
  });
});

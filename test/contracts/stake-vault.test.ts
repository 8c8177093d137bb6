import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { encodeFunctionData, getAddress, zeroAddress } from "viem";
import { DAY, deployCore, MIN_STAKE, mintAgent, signPermit, stakeAgent, wait } from "./fixtures.ts";

const { viem, networkHelpers } = await network.create();
const COOLDOWN = 14n * DAY;

async function fixture() {
  const core = await networkHelpers.loadFixture(deployCore);
  const { wallets } = core;
  const owner = wallets.agentOwner;
  const agentId = await mintAgent(core, owner.account.address);
  return { ...core, owner, agentId };
}

async function checkInvariant(core: Awaited<ReturnType<typeof fixture>>, agentIds: bigint[]) {
  const { usdc, vault } = core;
  const balance = await usdc.read.balanceOf([vault.address]);
  const total = await vault.read.totalStaked();
  let sum = 0n;
  for (const id of agentIds) sum += await vault.read.stakeOf([id]);
  assert.equal(balance, total, "vault balance == totalStaked");
  assert.equal(total, sum, "totalStaked == sum of stakes");
}

describe("StakeVault", () => {
  it("exposes its constants and roles", async () => {
    const { vault, escrow, roles, wallets } = await fixture();
    assert.equal(await vault.read.minStake(), MIN_STAKE);
    assert.equal(await vault.read.withdrawalCooldown(), COOLDOWN);
    assert.ok((await vault.read.withdrawalCooldown()) >= (await escrow.read.claimTimeout()));
    // The bounds keep that true whatever governance sets.
    assert.ok((await vault.read.MIN_WITHDRAWAL_COOLDOWN()) >= (await escrow.read.MAX_CLAIM_TIMEOUT()));
    assert.equal(await vault.read.hasRole([roles.ESCROW, escrow.address]), true);
    assert.equal(await vault.read.hasRole([roles.SLASHER, escrow.address]), false);
    assert.equal(await vault.read.hasRole([roles.SLASHER, wallets.admin.account.address]), true);
    assert.equal(await vault.read.hasRole([roles.ADMIN, wallets.admin.account.address]), true);
    assert.equal(await vault.read.treasury(), getAddress(wallets.treasury.account.address));
  });

  it("rejects zero addresses at construction", async () => {
    const { usdc, identity, wallets, vault } = await fixture();
    const a = wallets.admin.account.address;
    for (const args of [
      [zeroAddress, identity.address, a, a],
      [usdc.address, zeroAddress, a, a],
      [usdc.address, identity.address, zeroAddress, a],
      [usdc.address, identity.address, a, zeroAddress],
    ] as const) {
      await viem.assertions.revertWithCustomError(
        viem.deployContract("StakeVault", [...args]),
        vault,
        "StakeVaultZeroAddress",
      );
    }
  });

  describe("deposit", () => {
    it("pulls from the caller into the agent's stake (anyone may top up any agent)", async () => {
      const core = await fixture();
      const { usdc, vault, owner, agentId, wallets } = core;
      await usdc.write.mint([owner.account.address, 30_000_000n]);
      await usdc.write.approve([vault.address, 30_000_000n], { account: owner.account });
      const tx = vault.write.deposit([agentId, 30_000_000n], { account: owner.account });
      await viem.assertions.emitWithArgs(tx, vault, "Staked", [agentId, owner.account.address, 30_000_000n]);
      await viem.assertions.emitWithArgs(tx, usdc, "Transfer", [owner.account.address, vault.address, 30_000_000n]);
      await stakeAgent(core, agentId, wallets.other.account.address, 5n);
      assert.equal(await vault.read.stakeOf([agentId]), 30_000_005n);
      assert.equal(await vault.read.activeStakeOf([agentId]), 30_000_005n);
      assert.deepEqual(await vault.read.pendingWithdrawal([agentId]), [0n, 0n]);
      await checkInvariant(core, [agentId]);
    });

    it("rejects zero amounts, unknown agents and missing allowance", async () => {
      const { usdc, vault, owner, agentId } = await fixture();
      await viem.assertions.revertWithCustomError(
        vault.write.deposit([agentId, 0n], { account: owner.account }),
        vault,
        "StakeVaultZeroAmount",
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.deposit([42n, 1n], { account: owner.account }),
        vault,
        "StakeVaultUnknownAgent",
        [42n],
      );
      await viem.assertions.revertWithCustomError(
        vault.write.deposit([agentId, 1n], { account: owner.account }),
        usdc,
        "ERC20InsufficientAllowance",
      );
    });

    it("depositWithPermit: the relayer submits the payer's permit; a permit that fails reverts the deposit", async () => {
      const core = await fixture();
      const { usdc, vault, owner, agentId, wallets } = core;
      await usdc.write.mint([owner.account.address, 100_000_000n]);
      const now = (await core.publicClient.getBlock()).timestamp;
      let p = await signPermit(core.usdc, owner, { spender: vault.address, value: MIN_STAKE, deadline: now + 600n });
      await viem.assertions.emitWithArgs(
        vault.write.depositWithPermit([agentId, owner.account.address, MIN_STAKE, now + 600n, p.v, p.r, p.s], {
          account: wallets.relayer.account,
        }),
        vault,
        "Staked",
        [agentId, owner.account.address, MIN_STAKE],
      );
      assert.equal(await vault.read.stakeOf([agentId]), MIN_STAKE);

      // Someone front-runs the permit itself: the deposit reverts instead of spending the allowance it created.
      p = await signPermit(core.usdc, owner, { spender: vault.address, value: 7n, deadline: now + 600n });
      await usdc.write.permit([owner.account.address, vault.address, 7n, now + 600n, p.v, p.r, p.s], {
        account: wallets.other.account,
      });
      await viem.assertions.revertWithCustomError(
        vault.write.depositWithPermit([agentId, owner.account.address, 7n, now + 600n, p.v, p.r, p.s], {
          account: wallets.relayer.account,
        }),
        usdc,
        "ERC2612InvalidSigner",
      );
      assert.equal(await vault.read.stakeOf([agentId]), MIN_STAKE);
      await checkInvariant(core, [agentId]);
    });

    it("depositWithPermit: the relayer cannot pull a standing allowance into another agent (balances to the unit)", async () => {
      const core = await fixture();
      const { usdc, vault, owner, agentId, wallets } = core;
      const attackerAgent = await mintAgent(core, wallets.other.account.address);
      // The payer approved the vault for its own deposits (a standing allowance) and holds the funds.
      await usdc.write.mint([owner.account.address, 3n * MIN_STAKE]);
      await usdc.write.approve([vault.address, 3n * MIN_STAKE], { account: owner.account });
      const now = (await core.publicClient.getBlock()).timestamp;
      // A permit the payer signed for 1 unit, replayed for the whole allowance, and a signature of the attacker's.
      const small = await signPermit(core.usdc, owner, { spender: vault.address, value: 1n, deadline: now + 600n });
      const forged = await signPermit(core.usdc, wallets.other, {
        spender: vault.address,
        value: MIN_STAKE,
        deadline: now + 600n,
      });
      const vaultBefore = await usdc.read.balanceOf([vault.address]);
      for (const p of [small, forged]) {
        await viem.assertions.revertWithCustomError(
          vault.write.depositWithPermit([attackerAgent, owner.account.address, MIN_STAKE, now + 600n, p.v, p.r, p.s], {
            account: wallets.relayer.account,
          }),
          usdc,
          "ERC2612InvalidSigner",
        );
      }
      assert.equal(await usdc.read.balanceOf([owner.account.address]), 3n * MIN_STAKE);
      assert.equal(await usdc.read.balanceOf([vault.address]), vaultBefore);
      assert.equal(await usdc.read.allowance([owner.account.address, vault.address]), 3n * MIN_STAKE);
      assert.equal(await vault.read.stakeOf([attackerAgent]), 0n);
      await checkInvariant(core, [agentId, attackerAgent]);
    });

    it("depositWithPermit cannot be submitted by a third party (it would redirect the payer's funds)", async () => {
      const core = await fixture();
      const { usdc, vault, owner, agentId, wallets } = core;
      const attackerAgent = await mintAgent(core, wallets.other.account.address);
      await usdc.write.mint([owner.account.address, MIN_STAKE]);
      const now = (await core.publicClient.getBlock()).timestamp;
      const p = await signPermit(core.usdc, owner, { spender: vault.address, value: MIN_STAKE, deadline: now + 600n });
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.depositWithPermit([attackerAgent, owner.account.address, MIN_STAKE, now + 600n, p.v, p.r, p.s], {
          account: wallets.other.account,
        }),
        vault,
        "StakeVaultUnauthorized",
        [getAddress(wallets.other.account.address), attackerAgent],
      );
      assert.equal(await vault.read.stakeOf([agentId]), 0n);
    });
  });

  describe("withdrawals", () => {
    it("request -> cooldown -> withdraw pays the token owner", async () => {
      const core = await fixture();
      const { usdc, vault, owner, agentId, publicClient } = core;
      await stakeAgent(core, agentId, owner.account.address, 50_000_000n);
      const tx = await vault.write.requestWithdrawal([agentId, 30_000_000n], { account: owner.account });
      const { timestamp } = await publicClient.getBlock();
      const availableAt = timestamp + COOLDOWN;
      await viem.assertions.emitWithArgs(tx, vault, "WithdrawalRequested", [
        agentId,
        owner.account.address,
        30_000_000n,
        availableAt,
      ]);
      assert.deepEqual(await vault.read.pendingWithdrawal([agentId]), [30_000_000n, availableAt]);
      assert.equal(await vault.read.stakeOf([agentId]), 50_000_000n);
      assert.equal(await vault.read.activeStakeOf([agentId]), 20_000_000n);

      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.withdraw([agentId], { account: owner.account }),
        vault,
        "StakeVaultCooldownActive",
        [agentId, availableAt],
      );
      await networkHelpers.time.increaseTo(availableAt - 2n);
      await viem.assertions.revertWithCustomError(
        vault.write.withdraw([agentId], { account: owner.account }),
        vault,
        "StakeVaultCooldownActive",
      );
      await networkHelpers.time.setNextBlockTimestamp(availableAt);
      const w = vault.write.withdraw([agentId], { account: owner.account });
      await viem.assertions.emitWithArgs(w, vault, "Withdrawn", [agentId, owner.account.address, 30_000_000n]);
      assert.equal(await usdc.read.balanceOf([owner.account.address]), 30_000_000n);
      assert.equal(await vault.read.stakeOf([agentId]), 20_000_000n);
      assert.deepEqual(await vault.read.pendingWithdrawal([agentId]), [0n, 0n]);
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.withdraw([agentId], { account: owner.account }),
        vault,
        "StakeVaultNoWithdrawal",
        [agentId],
      );
      await checkInvariant(core, [agentId]);
    });

    it("the relayer may act for the owner, but the money always goes to the current token owner", async () => {
      const core = await fixture();
      const { usdc, vault, identity, owner, agentId, wallets } = core;
      await stakeAgent(core, agentId, owner.account.address, 25_000_000n);
      await vault.write.requestWithdrawal([agentId, 25_000_000n], { account: wallets.relayer.account });
      // The agent changes hands meanwhile: the new owner gets the payout.
      await identity.write.transferFrom([owner.account.address, wallets.poster2.account.address, agentId], {
        account: owner.account,
      });
      await networkHelpers.time.increase(COOLDOWN);
      await viem.assertions.emitWithArgs(
        vault.write.withdraw([agentId], { account: wallets.relayer.account }),
        vault,
        "Withdrawn",
        [agentId, wallets.poster2.account.address, 25_000_000n],
      );
      assert.equal(await usdc.read.balanceOf([wallets.poster2.account.address]), 25_000_000n);
      assert.equal(await usdc.read.balanceOf([wallets.relayer.account.address]), 0n);
    });

    it("rejects strangers, zero or excessive amounts, a second request and unknown agents", async () => {
      const core = await fixture();
      const { vault, owner, agentId, wallets } = core;
      await stakeAgent(core, agentId, owner.account.address, 25_000_000n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.requestWithdrawal([agentId, 1n], { account: wallets.other.account }),
        vault,
        "StakeVaultUnauthorized",
        [getAddress(wallets.other.account.address), agentId],
      );
      await viem.assertions.revertWithCustomError(
        vault.write.requestWithdrawal([agentId, 0n], { account: owner.account }),
        vault,
        "StakeVaultZeroAmount",
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.requestWithdrawal([agentId, 25_000_001n], { account: owner.account }),
        vault,
        "StakeVaultInsufficientStake",
        [agentId, 25_000_000n, 25_000_001n],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.requestWithdrawal([9n, 1n], { account: owner.account }),
        vault,
        "StakeVaultUnknownAgent",
        [9n],
      );
      await vault.write.requestWithdrawal([agentId, 5n], { account: owner.account });
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.requestWithdrawal([agentId, 5n], { account: owner.account }),
        vault,
        "StakeVaultWithdrawalPending",
        [agentId],
      );
      await networkHelpers.time.increase(COOLDOWN);
      await viem.assertions.revertWithCustomError(
        vault.write.withdraw([agentId], { account: wallets.other.account }),
        vault,
        "StakeVaultUnauthorized",
      );
      await viem.assertions.revertWithCustomError(
        vault.write.withdraw([9n], { account: owner.account }),
        vault,
        "StakeVaultUnknownAgent",
      );
    });
  });

  describe("slash", () => {
    it("moves bps of the whole stake to the treasury; every slash is a strike, the third bans", async () => {
      const core = await fixture();
      const { usdc, vault, owner, agentId, wallets } = core;
      const treasury = wallets.treasury.account.address;
      await stakeAgent(core, agentId, owner.account.address, 40_000_000n);
      await viem.assertions.emitWithArgs(
        vault.write.slash([agentId, 2500n, "test"], { account: wallets.admin.account }),
        vault,
        "Slashed",
        [agentId, treasury, 10_000_000n, 2500n, "test"],
      );
      assert.equal(await usdc.read.balanceOf([treasury]), 10_000_000n);
      assert.deepEqual(await vault.read.trustOf([agentId]), [1, 1n]);
      await viem.assertions.emitWithArgs(
        vault.write.slash([agentId, 10_000n, "full"], { account: wallets.admin.account }),
        vault,
        "Slashed",
        [agentId, treasury, 30_000_000n, 10_000n, "full"],
      );
      assert.equal(await usdc.read.balanceOf([treasury]), 40_000_000n);
      assert.equal(await vault.read.stakeOf([agentId]), 0n);
      assert.deepEqual(await vault.read.trustOf([agentId]), [1, 2n]);
      // Slashing an empty stake moves nothing and does not revert (escrow timeouts must not get stuck); it still
      // counts: the third strike bans.
      const empty = vault.write.slash([agentId, 5000n, "empty"], { account: wallets.admin.account });
      await viem.assertions.emitWithArgs(empty, vault, "Slashed", [agentId, treasury, 0n, 5000n, "empty"]);
      await viem.assertions.emitWithArgs(empty, vault, "TrustStateChanged", [agentId, 2, 3n, "empty"]);
      await checkInvariant(core, [agentId]);
    });

    it("reaches a pending withdrawal, trimming it only as far as needed", async () => {
      const core = await fixture();
      const { usdc, vault, owner, agentId, wallets } = core;
      await stakeAgent(core, agentId, owner.account.address, 100_000_000n);
      await vault.write.requestWithdrawal([agentId, 30_000_000n], { account: owner.account });
      const [, availableAt] = await vault.read.pendingWithdrawal([agentId]);

      // 50% of 100 -> 50 left, pending 30 still fits: unchanged.
      await vault.write.slash([agentId, 5000n, "a"], { account: wallets.admin.account });
      assert.equal(await vault.read.stakeOf([agentId]), 50_000_000n);
      assert.deepEqual(await vault.read.pendingWithdrawal([agentId]), [30_000_000n, availableAt]);
      assert.equal(await vault.read.activeStakeOf([agentId]), 20_000_000n);

      // 50% of 50 -> 25 left < pending 30: pending trimmed to 25, nothing active.
      await vault.write.slash([agentId, 5000n, "b"], { account: wallets.admin.account });
      assert.equal(await vault.read.stakeOf([agentId]), 25_000_000n);
      assert.deepEqual(await vault.read.pendingWithdrawal([agentId]), [25_000_000n, availableAt]);
      assert.equal(await vault.read.activeStakeOf([agentId]), 0n);

      await networkHelpers.time.increaseTo(availableAt);
      await vault.write.withdraw([agentId], { account: owner.account });
      assert.equal(await usdc.read.balanceOf([owner.account.address]), 25_000_000n);
      assert.equal(await vault.read.stakeOf([agentId]), 0n);
      await checkInvariant(core, [agentId]);
    });

    it("a full slash cancels the pending withdrawal", async () => {
      const core = await fixture();
      const { vault, owner, agentId, wallets } = core;
      await stakeAgent(core, agentId, owner.account.address, 30_000_000n);
      await vault.write.requestWithdrawal([agentId, 30_000_000n], { account: owner.account });
      await vault.write.slash([agentId, 10_000n, "all"], { account: wallets.admin.account });
      assert.deepEqual(await vault.read.pendingWithdrawal([agentId]), [0n, 0n]);
      await networkHelpers.time.increase(COOLDOWN);
      await viem.assertions.revertWithCustomError(
        vault.write.withdraw([agentId], { account: owner.account }),
        vault,
        "StakeVaultNoWithdrawal",
      );
      // A new request is possible once re-staked (still frozen: 1 unit is below the minimum).
      await stakeAgent(core, agentId, owner.account.address, 1n);
      assert.deepEqual(await vault.read.trustOf([agentId]), [1, 1n]);
      await vault.write.requestWithdrawal([agentId, 1n], { account: owner.account });
    });

    it("is SLASHER_ROLE only and checks bps and the agent", async () => {
      const core = await fixture();
      const { vault, agentId, wallets } = core;
      await viem.assertions.revertWithCustomError(
        vault.write.slash([agentId, 1n, "x"], { account: wallets.other.account }),
        vault,
        "AccessControlUnauthorizedAccount",
      );
      for (const bps of [0n, 10_001n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          vault.write.slash([agentId, bps, "x"], { account: wallets.admin.account }),
          vault,
          "StakeVaultInvalidBps",
          [bps],
        );
      }
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.slash([99n, 1n, "x"], { account: wallets.admin.account }),
        vault,
        "StakeVaultUnknownAgent",
        [99n],
      );
    });
  });

  describe("admin", () => {
    it("setTreasury: admin only, non-zero, emits", async () => {
      const { vault, wallets } = await fixture();
      await viem.assertions.emitWithArgs(
        vault.write.setTreasury([wallets.other.account.address], { account: wallets.admin.account }),
        vault,
        "TreasuryUpdated",
        [wallets.other.account.address],
      );
      assert.equal(await vault.read.treasury(), getAddress(wallets.other.account.address));
      await viem.assertions.revertWithCustomError(
        vault.write.setTreasury([zeroAddress], { account: wallets.admin.account }),
        vault,
        "StakeVaultZeroAddress",
      );
      await viem.assertions.revertWithCustomError(
        vault.write.setTreasury([wallets.other.account.address], { account: wallets.other.account }),
        vault,
        "AccessControlUnauthorizedAccount",
      );
    });
  });

  it("rejects reentrant calls through the token", async () => {
    const core = await fixture();
    const { identity, owner, agentId, wallets, publicClient } = core;
    const token = await viem.deployContract("MockReentrantERC20");
    const vault = await viem.deployContract("StakeVault", [
      token.address,
      identity.address,
      wallets.admin.account.address,
      wallets.treasury.account.address,
    ]);
    await wait(publicClient, token.write.mint([owner.account.address, 100n]));
    await wait(publicClient, token.write.approve([vault.address, 100n], { account: owner.account }));
    await wait(
      publicClient,
      token.write.setHook([
        vault.address,
        encodeFunctionData({ abi: vault.abi, functionName: "withdraw", args: [agentId] }),
      ]),
    );
    await viem.assertions.revertWithCustomError(
      vault.write.deposit([agentId, 100n], { account: owner.account }),
      vault,
      "ReentrancyGuardReentrantCall",
    );
  });
});

// Governance-set protocol parameters (fee rate, claim timeout, minimum stake, withdrawal cooldowns) and the
// emergency pause on StakeVault, RunEscrow, InsurancePool and AgentIdentity.
import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { type Abi, type Address, getAddress, type Hex } from "viem";
import {
  bytes32,
  createFundedRun,
  DAY,
  deployCore,
  feeOf,
  IPFS_URI,
  MIN_STAKE,
  mintAgent,
  stakeAgent,
  wait,
} from "./fixtures.ts";

const { viem, networkHelpers } = await network.create();

const REWARD = 100_000_000n; // 100 USDC

type Account = { address: Address };
/** What the four pausable contracts share (viem's per-contract types do not unify in a loop). */
interface Pausable {
  address: Address;
  abi: Abi;
  read: { paused(): Promise<boolean>; PAUSER_ROLE(): Promise<Hex> };
  write: {
    pause(o: { account: Account }): Promise<Hex>;
    unpause(o: { account: Account }): Promise<Hex>;
    grantRole(args: [Hex, Address], o: { account: Account }): Promise<Hex>;
  };
}
/** The vault's and the pool's cooldown setter. */
interface Cooldown {
  address: Address;
  abi: Abi;
  read: { withdrawalCooldown(): Promise<bigint> };
  write: { setWithdrawalCooldown(args: [bigint], o: { account: Account }): Promise<Hex> };
}
const pausable = (c: unknown) => c as Pausable;

async function fixture() {
  const core = await networkHelpers.loadFixture(deployCore);
  const { wallets, viem } = core;
  const pool = await viem.deployContract("InsurancePool", [
    core.usdc.address,
    core.escrow.address,
    core.identity.address,
    wallets.admin.account.address,
    wallets.relayer.account.address,
  ]);
  await wait(
    core.publicClient,
    pool.write.grantRole([await pool.read.PAUSER_ROLE(), wallets.admin.account.address], {
      account: wallets.admin.account,
    }),
  );
  const agentId = await mintAgent(core, wallets.agentOwner.account.address);
  await stakeAgent(core, agentId, wallets.agentOwner.account.address, MIN_STAKE * 2n);
  return { ...core, pool, agentId, poster: wallets.poster, agent: wallets.agentOwner };
}
type Fx = Awaited<ReturnType<typeof fixture>>;

async function assertBalanced(fx: Fx) {
  assert.equal(await fx.usdc.read.balanceOf([fx.escrow.address]), await fx.escrow.read.totalOwed());
  assert.equal(
    await fx.usdc.read.balanceOf([fx.vault.address]),
    (await fx.vault.read.totalStaked()) + (await fx.vault.read.totalCredits()),
  );
}

async function completeRun(fx: Fx, runId: bigint) {
  const { escrow, publicClient, agentId, agent, poster } = fx;
  await wait(publicClient, escrow.write.claim([runId, agentId], { account: agent.account }));
  await wait(publicClient, escrow.write.submit([runId, bytes32(`d${runId}`)], { account: agent.account }));
  await wait(publicClient, escrow.write.approve([runId], { account: poster.account }));
}

describe("Protocol parameters (governance only)", () => {
  it("fee rate: admin only, bounded, emitted; each run keeps the rate it was funded with", async () => {
    const fx = await fixture();
    const { escrow, usdc, wallets, poster } = fx;
    const admin = wallets.admin.account;
    await viem.assertions.revertWithCustomError(
      escrow.write.setFeeBps([100n], { account: wallets.relayer.account }),
      escrow,
      "AccessControlUnauthorizedAccount",
    );
    await viem.assertions.revertWithCustomErrorWithArgs(
      escrow.write.setFeeBps([1_001n], { account: admin }),
      escrow,
      "RunEscrowInvalidFeeBps",
      [1_001n],
    );
    const before = await createFundedRun(fx, poster.account.address, REWARD); // funded at 5%
    await viem.assertions.emitWithArgs(escrow.write.setFeeBps([250n], { account: admin }), escrow, "FeeBpsUpdated", [
      250n,
    ]);
    assert.equal(await escrow.read.feeBps(), 250n);
    assert.equal((await escrow.read.getRun([before])).fee, feeOf(REWARD));

    // A run funded now pulls reward + 2.5% (the pull's Transfer and getRun say so; RunCreated logs the reward).
    const now = (await fx.publicClient.getBlock()).timestamp;
    const newFee = feeOf(REWARD, 250n);
    await wait(fx.publicClient, usdc.write.mint([poster.account.address, REWARD + newFee]));
    await wait(fx.publicClient, usdc.write.approve([escrow.address, REWARD + newFee], { account: poster.account }));
    const created = escrow.write.createRun([REWARD, now + DAY, 0, 0n, IPFS_URI], { account: poster.account });
    await viem.assertions.emitWithArgs(created, escrow, "RunCreated", [
      before + 1n,
      getAddress(poster.account.address),
      REWARD,
      now + DAY,
      0,
      IPFS_URI,
    ]);
    await viem.assertions.emitWithArgs(created, usdc, "Transfer", [
      getAddress(poster.account.address),
      getAddress(escrow.address),
      REWARD + newFee,
    ]);
    const after = await escrow.read.runCount();
    assert.equal((await escrow.read.getRun([after])).fee, newFee);
    assert.equal(await usdc.read.balanceOf([poster.account.address]), 0n);

    // Completing both keeps each run's own fee for the treasury, to the base unit.
    const treasury = wallets.treasury.account.address;
    const t0 = await usdc.read.balanceOf([treasury]);
    await completeRun(fx, before);
    assert.equal(await escrow.read.feesAccrued(), feeOf(REWARD));
    await completeRun(fx, after);
    assert.equal(await escrow.read.feesAccrued(), feeOf(REWARD) + newFee);
    await assertBalanced(fx);

    // Zero is a valid rate: the run costs exactly its reward.
    await wait(fx.publicClient, escrow.write.setFeeBps([0n], { account: admin }));
    const free = await createFundedRun(fx, poster.account.address, REWARD);
    assert.equal((await escrow.read.getRun([free])).fee, 0n);
    await completeRun(fx, free);
    assert.equal(await escrow.read.feesAccrued(), feeOf(REWARD) + newFee);
    await wait(fx.publicClient, escrow.write.sweepFees());
    assert.equal(await usdc.read.balanceOf([treasury]), t0 + feeOf(REWARD) + newFee);
    await assertBalanced(fx);
  });

  it("claim timeout: admin only, bounded, emitted, used by timeoutSlash", async () => {
    const fx = await fixture();
    const { escrow, wallets, poster, agentId, agent, publicClient } = fx;
    const admin = wallets.admin.account;
    for (const bad of [DAY - 1n, 7n * DAY + 1n]) {
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.setClaimTimeout([bad], { account: admin }),
        escrow,
        "RunEscrowInvalidClaimTimeout",
        [bad],
      );
    }
    await viem.assertions.revertWithCustomError(
      escrow.write.setClaimTimeout([2n * DAY], { account: poster.account }),
      escrow,
      "AccessControlUnauthorizedAccount",
    );
    await viem.assertions.emitWithArgs(
      escrow.write.setClaimTimeout([2n * DAY], { account: admin }),
      escrow,
      "ClaimTimeoutUpdated",
      [2n * DAY],
    );
    const runId = await createFundedRun(fx, poster.account.address, REWARD);
    await wait(publicClient, escrow.write.claim([runId, agentId], { account: agent.account }));
    const claimedAt = (await escrow.read.getRun([runId])).claimedAt;
    await viem.assertions.revertWithCustomErrorWithArgs(
      escrow.write.timeoutSlash([runId], { account: poster.account }),
      escrow,
      "RunEscrowTimeoutNotReached",
      [runId, claimedAt + 2n * DAY],
    );
    await networkHelpers.time.increaseTo(claimedAt + 2n * DAY);
    await wait(publicClient, escrow.write.timeoutSlash([runId], { account: poster.account }));
    assert.equal((await escrow.read.getRun([runId])).state, 10); // TimedOut
    await assertBalanced(fx);
  });

  it("minimum stake: admin only, bounded, emitted, enforced by claims", async () => {
    const fx = await fixture();
    const { vault, escrow, wallets, poster, agentId, agent, publicClient } = fx;
    const admin = wallets.admin.account;
    for (const bad of [999_999n, 1_000_000_000_001n]) {
      await viem.assertions.revertWithCustomErrorWithArgs(
        vault.write.setMinStake([bad], { account: admin }),
        vault,
        "StakeVaultInvalidMinStake",
        [bad],
      );
    }
    await viem.assertions.revertWithCustomError(
      vault.write.setMinStake([MIN_STAKE], { account: wallets.relayer.account }),
      vault,
      "AccessControlUnauthorizedAccount",
    );
    // The agent has 40 USDC: raising the minimum to 40.000001 USDC stops its claims.
    const raised = MIN_STAKE * 2n + 1n;
    await viem.assertions.emitWithArgs(
      vault.write.setMinStake([raised], { account: admin }),
      vault,
      "MinStakeUpdated",
      [raised],
    );
    const runId = await createFundedRun(fx, poster.account.address, REWARD);
    await viem.assertions.revertWithCustomErrorWithArgs(
      escrow.write.claim([runId, agentId], { account: agent.account }),
      vault,
      "StakeVaultInsufficientStake",
      [agentId, MIN_STAKE * 2n, raised],
    );
    await wait(publicClient, vault.write.setMinStake([MIN_STAKE * 2n], { account: admin }));
    await wait(publicClient, escrow.write.claim([runId, agentId], { account: agent.account }));
  });

  it("withdrawal cooldowns (vault and insurance pool): admin only, bounded, emitted, used by new requests", async () => {
    const fx = await fixture();
    const { vault, pool, usdc, wallets, agentId, agent, publicClient } = fx;
    const admin = wallets.admin.account;
    for (const [contract, error] of [
      [vault as unknown as Cooldown, "StakeVaultInvalidCooldown"],
      [pool as unknown as Cooldown, "InsurancePoolInvalidCooldown"],
    ] as const) {
      for (const bad of [7n * DAY - 1n, 90n * DAY + 1n]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          contract.write.setWithdrawalCooldown([bad], { account: admin }),
          contract,
          error,
          [bad],
        );
      }
      await viem.assertions.revertWithCustomError(
        contract.write.setWithdrawalCooldown([30n * DAY], { account: agent.account }),
        contract,
        "AccessControlUnauthorizedAccount",
      );
      await viem.assertions.emitWithArgs(
        contract.write.setWithdrawalCooldown([30n * DAY], { account: admin }),
        contract,
        "WithdrawalCooldownUpdated",
        [30n * DAY],
      );
      assert.equal(await contract.read.withdrawalCooldown(), 30n * DAY);
    }
    await wait(publicClient, vault.write.requestWithdrawal([agentId, MIN_STAKE], { account: agent.account }));
    const now = BigInt(await networkHelpers.time.latest());
    assert.deepEqual(await vault.read.pendingWithdrawal([agentId]), [MIN_STAKE, now + 30n * DAY]);
    await wait(publicClient, usdc.write.mint([agent.account.address, 5_000_000n]));
    await wait(publicClient, usdc.write.approve([pool.address, 5_000_000n], { account: agent.account }));
    await wait(publicClient, pool.write.stake([agentId, 5_000_000n], { account: agent.account }));
    await wait(publicClient, pool.write.requestWithdrawal([agentId, 5_000_000n], { account: agent.account }));
    const poolNow = BigInt(await networkHelpers.time.latest());
    assert.deepEqual(await pool.read.pendingWithdrawal([agentId]), [5_000_000n, poolNow + 30n * DAY]);
  });
});

describe("Emergency pause", () => {
  it("only PAUSER_ROLE pauses and unpauses each contract; the pauser cannot move funds or set parameters", async () => {
    const fx = await fixture();
    const { vault, escrow, pool, identity, wallets, agentId } = fx;
    const pauser = wallets.other;
    for (const c of [vault, escrow, pool, identity].map(pausable)) {
      await viem.assertions.revertWithCustomError(
        c.write.pause({ account: pauser.account }),
        c,
        "AccessControlUnauthorizedAccount",
      );
      await wait(
        fx.publicClient,
        c.write.grantRole([await c.read.PAUSER_ROLE(), pauser.account.address], { account: wallets.admin.account }),
      );
      await viem.assertions.emitWithArgs(c.write.pause({ account: pauser.account }), c, "Paused", [
        pauser.account.address,
      ]);
      assert.equal(await c.read.paused(), true);
      await viem.assertions.revertWithCustomError(c.write.pause({ account: pauser.account }), c, "EnforcedPause");
      await viem.assertions.emitWithArgs(c.write.unpause({ account: pauser.account }), c, "Unpaused", [
        pauser.account.address,
      ]);
      await viem.assertions.revertWithCustomError(c.write.unpause({ account: pauser.account }), c, "ExpectedPause");
    }
    // PAUSER_ROLE is not a way to money or parameters.
    await viem.assertions.revertWithCustomError(
      vault.write.slash([agentId, 10_000n, "x"], { account: pauser.account }),
      vault,
      "AccessControlUnauthorizedAccount",
    );
    await viem.assertions.revertWithCustomError(
      escrow.write.setFeeBps([0n], { account: pauser.account }),
      escrow,
      "AccessControlUnauthorizedAccount",
    );
    await viem.assertions.revertWithCustomError(
      escrow.write.setTreasury([pauser.account.address], { account: pauser.account }),
      escrow,
      "AccessControlUnauthorizedAccount",
    );
  });

  it("a paused escrow moves no USDC and opens nothing; the agent can still start and submit", async () => {
    const fx = await fixture();
    const { escrow, usdc, wallets, poster, agentId, agent, publicClient } = fx;
    const admin = wallets.admin.account;
    const claimed = await createFundedRun(fx, poster.account.address, REWARD, { maxRevisions: 0 });
    const open = await createFundedRun(fx, poster.account.address, REWARD);
    await wait(publicClient, escrow.write.claim([claimed, agentId], { account: agent.account }));
    await wait(publicClient, usdc.write.mint([poster.account.address, 2n * REWARD]));
    await wait(publicClient, usdc.write.approve([escrow.address, 2n * REWARD], { account: poster.account }));
    await wait(
      publicClient,
      escrow.write.grantRole([await escrow.read.SPONSOR_ROLE(), wallets.relayer.account.address], { account: admin }),
    );
    await wait(publicClient, escrow.write.pause({ account: admin }));
    const escrowBalance = await usdc.read.balanceOf([escrow.address]);

    const deadline = (await publicClient.getBlock()).timestamp + DAY;
    const blocked = [
      escrow.write.createRun([REWARD, deadline, 0, 0n, ""], { account: poster.account }),
      escrow.write.createSponsoredRun([poster.account.address, REWARD, deadline, 0, ""], {
        account: wallets.relayer.account,
      }),
      escrow.write.claim([open, agentId], { account: agent.account }),
      escrow.write.cancel([open], { account: poster.account }),
    ];
    for (const tx of blocked) await viem.assertions.revertWithCustomError(tx, escrow, "EnforcedPause");
    // Work in progress goes on (no money moves), so no agent misses its timeout because of a pause.
    await wait(publicClient, escrow.write.start([claimed], { account: agent.account }));
    await wait(publicClient, escrow.write.submit([claimed, bytes32("work")], { account: agent.account }));
    await viem.assertions.revertWithCustomError(
      escrow.write.approve([claimed], { account: poster.account }),
      escrow,
      "EnforcedPause",
    );
    await viem.assertions.revertWithCustomError(
      escrow.write.reject([claimed], { account: poster.account }),
      escrow,
      "EnforcedPause",
    );
    await wait(publicClient, escrow.write.dispute([claimed], { account: poster.account }));
    await viem.assertions.revertWithCustomError(
      escrow.write.resolve([claimed, true], { account: admin }),
      escrow,
      "EnforcedPause",
    );
    assert.equal(await usdc.read.balanceOf([escrow.address]), escrowBalance);

    await wait(publicClient, escrow.write.unpause({ account: admin }));
    await wait(publicClient, escrow.write.resolve([claimed, true], { account: admin }));
    await wait(publicClient, escrow.write.cancel([open], { account: poster.account }));
    await assertBalanced(fx);
  });

  it("a paused vault, pool and identity registry move no USDC and no token", async () => {
    const fx = await fixture();
    const { vault, pool, identity, usdc, wallets, agentId, agent, publicClient } = fx;
    const admin = wallets.admin.account;
    await wait(publicClient, vault.write.requestWithdrawal([agentId, MIN_STAKE], { account: agent.account }));
    await networkHelpers.time.increase(14n * DAY);
    await wait(publicClient, usdc.write.mint([agent.account.address, MIN_STAKE]));
    await wait(publicClient, usdc.write.approve([vault.address, MIN_STAKE], { account: agent.account }));
    await wait(publicClient, usdc.write.approve([pool.address, MIN_STAKE], { account: agent.account }));
    for (const c of [vault, pool, identity].map(pausable)) await wait(publicClient, c.write.pause({ account: admin }));

    for (const [tx, c] of [
      [vault.write.deposit([agentId, 1n], { account: agent.account }), vault],
      [vault.write.withdraw([agentId], { account: agent.account }), vault],
      [vault.write.slash([agentId, 100n, "x"], { account: admin }), vault],
      [pool.write.stake([agentId, 1n], { account: agent.account }), pool],
      [identity.write.mint([agent.account.address, IPFS_URI], { account: wallets.relayer.account }), identity],
      [identity.write.setTokenURI([agentId, IPFS_URI], { account: agent.account }), identity],
      [
        identity.write.transferFrom([agent.account.address, wallets.other.account.address, agentId], {
          account: agent.account,
        }),
        identity,
      ],
    ] as [Promise<Hex>, { address: Address; abi: Abi }][]) {
      await viem.assertions.revertWithCustomError(tx, c, "EnforcedPause");
    }
    for (const c of [vault, pool, identity].map(pausable)) {
      await wait(publicClient, c.write.unpause({ account: admin }));
    }
    const before = await usdc.read.balanceOf([agent.account.address]);
    await wait(publicClient, vault.write.withdraw([agentId], { account: agent.account }));
    assert.equal(await usdc.read.balanceOf([agent.account.address]), before + MIN_STAKE);
    await wait(
      publicClient,
      identity.write.mint([agent.account.address, IPFS_URI], { account: wallets.relayer.account }),
    );
    await assertBalanced(fx);
  });
});

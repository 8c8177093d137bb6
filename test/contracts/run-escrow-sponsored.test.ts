// RunEscrow.createSponsoredRun: a run whose poster is one address and whose reward + fee come from the caller, a
// SPONSOR_ROLE holder (in deployments the SubscriptionVault, spending a subscriber's escrowed balance; here a plain
// account stands in). The poster acts on the run and receives its refunds as usual.
import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { getAddress } from "viem";
import { DAY, deployCore, feeOf, IPFS_URI, wait } from "./fixtures.ts";

const { networkHelpers } = await network.create();

const REWARD = 2_000_000n;
const AMOUNT = REWARD + feeOf(REWARD);

async function fixture() {
  const core = await networkHelpers.loadFixture(deployCore);
  const { usdc, escrow, publicClient, wallets } = core;
  // The sponsor stand-in: the relayer's account, granted SPONSOR_ROLE for these tests only.
  await wait(
    publicClient,
    escrow.write.grantRole([await escrow.read.SPONSOR_ROLE(), wallets.relayer.account.address], {
      account: wallets.admin.account,
    }),
  );
  await wait(
    publicClient,
    usdc.write.mint([wallets.relayer.account.address, AMOUNT * 3n], { account: wallets.relayer.account }),
  );
  await wait(publicClient, usdc.write.approve([escrow.address, AMOUNT * 3n], { account: wallets.relayer.account }));
  const now = (await publicClient.getBlock()).timestamp;
  return { ...core, deadline: now + 7n * DAY };
}

describe("RunEscrow.createSponsoredRun", () => {
  it("records the poster, pulls reward + fee from the relayer, and refunds the poster on cancel", async () => {
    const { usdc, escrow, publicClient, wallets, deadline } = await fixture();
    const poster = wallets.poster.account.address;
    const posterBefore = await usdc.read.balanceOf([poster]);
    const relayerBefore = await usdc.read.balanceOf([wallets.relayer.account.address]);
    await wait(
      publicClient,
      escrow.write.createSponsoredRun([poster, REWARD, deadline, 2, IPFS_URI], { account: wallets.relayer.account }),
    );
    const runId = await escrow.read.runCount();
    const run = await escrow.read.getRun([runId]);
    assert.equal(run.poster, getAddress(poster));
    assert.equal(run.reward, REWARD);
    assert.equal(run.state, 1);
    assert.equal(await usdc.read.balanceOf([wallets.relayer.account.address]), relayerBefore - AMOUNT);
    assert.equal(await usdc.read.balanceOf([poster]), posterBefore, "the poster pays nothing");
    assert.equal(await usdc.read.balanceOf([escrow.address]), await escrow.read.totalOwed());

    // The poster cancels it directly; the refund goes to the poster (the subscription's owner).
    await wait(publicClient, escrow.write.cancel([runId], { account: wallets.poster.account }));
    assert.equal(await usdc.read.balanceOf([poster]), posterBefore + AMOUNT);
    assert.equal(await escrow.read.totalOwed(), 0n);
  });

  it("is refused to anyone without SPONSOR_ROLE: the poster, and the relayer role alone", async () => {
    const { usdc, escrow, publicClient, wallets, deadline } = await fixture();
    const poster = wallets.poster.account;
    await wait(publicClient, usdc.write.mint([poster.address, AMOUNT], { account: poster }));
    await wait(publicClient, usdc.write.approve([escrow.address, AMOUNT], { account: poster }));
    await assert.rejects(
      escrow.write.createSponsoredRun([poster.address, REWARD, deadline, 2, IPFS_URI], { account: poster }),
      /AccessControlUnauthorizedAccount/,
    );
    // RELAYER_ROLE does not include sponsoring (the deployed relayer holds no SPONSOR_ROLE).
    await wait(
      publicClient,
      escrow.write.revokeRole([await escrow.read.SPONSOR_ROLE(), wallets.relayer.account.address], {
        account: wallets.admin.account,
      }),
    );
    assert.ok(await escrow.read.hasRole([await escrow.read.RELAYER_ROLE(), wallets.relayer.account.address]));
    await assert.rejects(
      escrow.write.createSponsoredRun([poster.address, REWARD, deadline, 2, IPFS_URI], {
        account: wallets.relayer.account,
      }),
      /AccessControlUnauthorizedAccount/,
    );
  });

  it("checks reward, deadline and the relayer's allowance like createRun", async () => {
    const { escrow, publicClient, wallets, deadline } = await fixture();
    const relayer = wallets.relayer.account;
    const poster = wallets.poster.account.address;
    await assert.rejects(
      escrow.write.createSponsoredRun([poster, 0n, deadline, 2, IPFS_URI], { account: relayer }),
      /RunEscrowZeroReward/,
    );
    const now = (await publicClient.getBlock()).timestamp;
    await assert.rejects(
      escrow.write.createSponsoredRun([poster, REWARD, now - 1n, 2, IPFS_URI], { account: relayer }),
      /RunEscrowDeadlinePassed/,
    );
    await assert.rejects(
      escrow.write.createSponsoredRun([poster, REWARD * 10n, deadline, 2, IPFS_URI], { account: relayer }),
      /ERC20InsufficientAllowance/,
    );
  });
});

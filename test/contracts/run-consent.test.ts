/**
 * Issue 12 item 8, run escrow: the relayer's key alone moves no money. Poster and agent actions need the party
 * itself as the caller or its EIP-712 consent (`...BySig`), bound to this chain, this escrow, the action, the run,
 * the agent and the deliverable, a single-use nonce and a deadline; disputes are resolved by ARBITER_ROLE only.
 * Balances are checked to the base unit.
 */
import assert from "node:assert/strict";
import { network } from "hardhat";
import { describe, it } from "mocha";
import { getAddress } from "viem";
import {
  bytes32,
  claimTermsOf,
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

const { viem, networkHelpers } = await network.create();

const REWARD = 250_000_000n; // 250 USDC
const FEE = feeOf(REWARD);
const State = { Open: 1, Claimed: 2, Submitted: 4, RevisionRequested: 5, Disputed: 6, Completed: 7 } as const;

/** Core, a victim poster's funded run, a victim agent (agentOwner) and the relayer's own staked agent. */
async function fixture() {
  const core = await networkHelpers.loadFixture(deployCore);
  const { wallets } = core;
  const victimAgent = await mintAgent(core, wallets.agentOwner.account.address);
  await stakeAgent(core, victimAgent, wallets.agentOwner.account.address, 2n * MIN_STAKE);
  // The attacker holds the relayer's key and registers an agent of its own, staked like any other.
  const relayerAgent = await mintAgent(core, wallets.relayer.account.address);
  await stakeAgent(core, relayerAgent, wallets.relayer.account.address, MIN_STAKE);
  const runId = await createFundedRun(core, wallets.poster.account.address, REWARD, { maxRevisions: 1 });
  return { ...core, victimAgent, relayerAgent, runId };
}
type Fx = Awaited<ReturnType<typeof fixture>>;

const balances = async (fx: Fx) => {
  const { usdc, escrow, wallets } = fx;
  const of = (a: `0x${string}`) => usdc.read.balanceOf([a]);
  return {
    poster: await of(wallets.poster.account.address),
    relayer: await of(wallets.relayer.account.address),
    agentOwner: await of(wallets.agentOwner.account.address),
    escrow: await of(escrow.address),
    owed: await escrow.read.totalOwed(),
  };
};

describe("RunEscrow: relayed actions need the party's consent", () => {
  describe("an attacker with only the relayer's key", () => {
    it("cannot claim + approve someone's funded run: the reward stays in escrow to the base unit", async () => {
      const fx = await fixture();
      const { escrow, wallets, runId, relayerAgent } = fx;
      const relayer = wallets.relayer;
      const as = { account: relayer.account };
      const before = await balances(fx);
      assert.equal(before.escrow, REWARD + FEE);

      // Claiming and submitting with its own agent is allowed (it owns that agent)...
      await wait(fx.publicClient, escrow.write.claim([runId, relayerAgent], as));
      await wait(fx.publicClient, escrow.write.submit([runId, bytes32("junk")], as));
      // ...but approving needs the poster: directly, with its own consent, or with a forged one.
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.approve([runId], as),
        escrow,
        "RunEscrowUnauthorized",
        [getAddress(relayer.account.address)],
      );
      const own = await signConsent(fx, relayer, "approve", runId);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.approveBySig([runId, own], as),
        escrow,
        "RunEscrowWrongSigner",
        [getAddress(relayer.account.address)],
      );
      const forged = { ...own, signer: wallets.poster.account.address };
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.approveBySig([runId, forged], as),
        escrow,
        "RunEscrowInvalidConsent",
        [getAddress(wallets.poster.account.address)],
      );
      // Nor can it reject or request a revision for the poster.
      for (const fn of ["rejectBySig", "requestRevisionBySig"] as const) {
        const action = fn === "rejectBySig" ? "reject" : "requestRevision";
        const c = { ...(await signConsent(fx, relayer, action, runId)), signer: wallets.poster.account.address };
        await viem.assertions.revertWithCustomError(
          escrow.write[fn]([runId, c], as),
          escrow,
          "RunEscrowInvalidConsent",
        );
      }
      assert.equal((await escrow.read.getRun([runId])).state, State.Submitted);
      assert.deepEqual(await balances(fx), before, "not one base unit moved");
    });

    it("cannot cancel a run (refunds only ever go to the poster) nor claim with someone else's agent", async () => {
      const fx = await fixture();
      const { escrow, wallets, runId, victimAgent } = fx;
      const relayer = wallets.relayer;
      const as = { account: relayer.account };
      const before = await balances(fx);
      await viem.assertions.revertWithCustomError(escrow.write.cancel([runId], as), escrow, "RunEscrowUnauthorized");
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.cancelBySig([runId, await signConsent(fx, relayer, "cancel", runId)], as),
        escrow,
        "RunEscrowWrongSigner",
        [getAddress(relayer.account.address)],
      );
      // A victim agent cannot be made to claim (and later be timed out and slashed) without its owner.
      await viem.assertions.revertWithCustomError(
        escrow.write.claim([runId, victimAgent], as),
        escrow,
        "RunEscrowUnauthorized",
      );
      const forged = {
        ...(await signConsent(fx, relayer, "claim", runId, { agentId: victimAgent })),
        signer: wallets.agentOwner.account.address,
      };
      await viem.assertions.revertWithCustomError(
        escrow.write.claimBySig([runId, victimAgent, forged], as),
        escrow,
        "RunEscrowInvalidConsent",
      );
      assert.equal((await escrow.read.getRun([runId])).state, State.Open);
      assert.deepEqual(await balances(fx), before);
      // With the poster's consent the relayer cancels, and the refund goes to the poster, not the caller.
      const ok = await signConsent(fx, wallets.poster, "cancel", runId);
      await wait(fx.publicClient, escrow.write.cancelBySig([runId, ok], as));
      const after = await balances(fx);
      assert.equal(after.poster, before.poster + REWARD + FEE);
      assert.equal(after.relayer, before.relayer);
      assert.equal(after.escrow, before.escrow - REWARD - FEE);
    });

    it("cannot resolve a dispute: resolve is ARBITER_ROLE's, which the relayer does not hold", async () => {
      const fx = await fixture();
      const { escrow, wallets, runId, relayerAgent, roles } = fx;
      const as = { account: wallets.relayer.account };
      await wait(fx.publicClient, escrow.write.claim([runId, relayerAgent], as));
      await wait(fx.publicClient, escrow.write.submit([runId, bytes32("junk")], as));
      // Its agent may dispute (it owns it); resolving for itself is refused.
      await viem.assertions.emitWithArgs(escrow.write.dispute([runId], as), escrow, "RunDisputed", [
        runId,
        relayerAgent,
        getAddress(wallets.relayer.account.address),
      ]);
      const before = await balances(fx);
      assert.equal(await escrow.read.hasRole([roles.ARBITER, wallets.relayer.account.address]), false);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.resolve([runId, true], as),
        escrow,
        "RunEscrowUnauthorized",
        [getAddress(wallets.relayer.account.address)],
      );
      assert.equal((await escrow.read.getRun([runId])).state, State.Disputed);
      assert.deepEqual(await balances(fx), before);
    });
  });

  describe("a consent is single-use, dated and bound to its chain, escrow, run, agent and deliverable", () => {
    it("a replayed consent fails (the nonce is spent), even when the run is back in the same state", async () => {
      const fx = await fixture();
      const { escrow, wallets, runId, victimAgent } = fx;
      const as = { account: wallets.relayer.account };
      const h = bytes32("v1");
      await wait(fx.publicClient, escrow.write.claim([runId, victimAgent], { account: wallets.agentOwner.account }));
      await wait(fx.publicClient, escrow.write.submit([runId, h], { account: wallets.agentOwner.account }));
      const revision = await signConsent(fx, wallets.poster, "requestRevision", runId);
      await wait(fx.publicClient, escrow.write.requestRevisionBySig([runId, revision], as));
      // The agent resubmits the same deliverable: run, agent and hash are what the consent names again.
      await wait(fx.publicClient, escrow.write.submit([runId, h], { account: wallets.agentOwner.account }));
      await viem.assertions.revertWithCustomError(
        escrow.write.requestRevisionBySig([runId, revision], as),
        escrow,
        "InvalidAccountNonce",
      );
      assert.equal((await escrow.read.getRun([runId])).state, State.Submitted);
      // The next nonce of the same key works once.
      assert.equal(await escrow.read.nonces([wallets.poster.account.address, runId]), (runId << 64n) + 1n);
      const before = await balances(fx);
      const approve = await signConsent(fx, wallets.poster, "approve", runId);
      await wait(fx.publicClient, escrow.write.approveBySig([runId, approve], as));
      await wait(fx.publicClient, escrow.write.payRewards([[victimAgent]], as));
      const after = await balances(fx);
      assert.equal(after.agentOwner, before.agentOwner + REWARD);
      assert.equal(after.relayer, before.relayer);
      assert.equal(after.escrow, before.escrow - REWARD);
    });

    it("an expired consent fails; one that has not expired yet works", async () => {
      const fx = await fixture();
      const { escrow, wallets, runId, publicClient } = fx;
      const as = { account: wallets.relayer.account };
      const now = (await publicClient.getBlock()).timestamp;
      const consent = await signConsent(fx, wallets.poster, "cancel", runId, { deadline: now + 60n });
      await networkHelpers.time.increase(61n);
      await viem.assertions.revertWithCustomErrorWithArgs(
        escrow.write.cancelBySig([runId, consent], as),
        escrow,
        "RunEscrowConsentExpired",
        [now + 60n],
      );
      const fresh = await signConsent(fx, wallets.poster, "cancel", runId);
      await wait(publicClient, escrow.write.cancelBySig([runId, fresh], as));
    });

    it("a consent for another chain, another escrow, another run or another action fails", async () => {
      const fx = await fixture();
      const { escrow, wallets, runId, usdc, vault, identity } = fx;
      const as = { account: wallets.relayer.account };
      const poster = wallets.poster;
      const other = await viem.deployContract("RunEscrow", [
        usdc.address,
        vault.address,
        identity.address,
        wallets.admin.account.address,
        wallets.relayer.account.address,
        wallets.treasury.account.address,
      ]);
      const run2 = await createFundedRun(fx, poster.account.address, REWARD);
      const cases = [
        ["chain 8453 (Base mainnet)", await signConsent(fx, poster, "cancel", runId, { chainId: 8453 })],
        ["another escrow", await signConsent(fx, poster, "cancel", runId, { escrow: other.address })],
        [
          "another run",
          await signConsent(fx, poster, "cancel", run2, {
            nonce: await escrow.read.nonces([poster.account.address, runId]),
          }),
        ],
        ["another action", await signConsent(fx, poster, "approve", runId)],
      ] as const;
      for (const [label, consent] of cases) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          escrow.write.cancelBySig([runId, consent], as),
          escrow,
          "RunEscrowInvalidConsent",
          [getAddress(poster.account.address)],
        );
        assert.equal((await escrow.read.getRun([runId])).state, State.Open, label);
      }
    });

    it("a withheld approval cannot pay another agent after the run reopened", async () => {
      const fx = await fixture();
      const { escrow, wallets, runId, victimAgent, relayerAgent } = fx;
      const as = { account: wallets.relayer.account };
      const h = bytes32("same");
      await wait(fx.publicClient, escrow.write.claim([runId, victimAgent], { account: wallets.agentOwner.account }));
      await wait(fx.publicClient, escrow.write.submit([runId, h], { account: wallets.agentOwner.account }));
      // The poster signs an approval for agent 1's deliverable; the relayer holds it back.
      const withheld = await signConsent(fx, wallets.poster, "approve", runId);
      await wait(fx.publicClient, escrow.write.dispute([runId], { account: wallets.poster.account }));
      await wait(fx.publicClient, escrow.write.resolve([runId, false], { account: wallets.admin.account }));
      // Reopened: the relayer's own agent claims and submits the very same hash, then replays the approval.
      await wait(fx.publicClient, escrow.write.claim([runId, relayerAgent], as));
      await wait(fx.publicClient, escrow.write.submit([runId, h], as));
      const before = await balances(fx);
      await viem.assertions.revertWithCustomError(
        escrow.write.approveBySig([runId, withheld], as),
        escrow,
        "RunEscrowInvalidConsent",
      );
      assert.deepEqual(await balances(fx), before);
    });

    it("a submit consent covers only the deliverable it names", async () => {
      const fx = await fixture();
      const { escrow, wallets, runId, victimAgent } = fx;
      const as = { account: wallets.relayer.account };
      const owner = wallets.agentOwner;
      await wait(
        fx.publicClient,
        escrow.write.claimBySig(
          [runId, victimAgent, await signConsent(fx, owner, "claim", runId, { agentId: victimAgent })],
          as,
        ),
      );
      const consent = await signConsent(fx, owner, "submit", runId, { deliverableHash: bytes32("real work") });
      await viem.assertions.revertWithCustomError(
        escrow.write.submitBySig([runId, bytes32("swapped"), consent], as),
        escrow,
        "RunEscrowInvalidConsent",
      );
      await wait(fx.publicClient, escrow.write.submitBySig([runId, bytes32("real work"), consent], as));
      assert.equal((await escrow.read.getRun([runId])).deliverableHash, bytes32("real work"));
    });

    it("a claim consent binds the run's terms and its cover: consented to other damages, it claims nothing", async () => {
      const fx = await fixture();
      const { escrow, wallets, victimAgent, publicClient } = fx;
      const as = { account: wallets.relayer.account };
      const owner = wallets.agentOwner;
      // A run with 2x its reward of agreed damages, fixed at funding.
      const covered = await createFundedRun(fx, wallets.poster.account.address, REWARD, { cover: 2n * REWARD });
      const terms = await claimTermsOf(fx, covered);
      assert.equal(terms.cover, 2n * REWARD);
      // The agent looked at the run when it had less cover (or another reward, deadline, revisions, poster): its
      // consent does not carry over to these terms. The poster cannot raise the cover under it either: no function
      // changes a funded run's cover.
      for (const other of [
        { ...terms, cover: REWARD },
        { ...terms, cover: 0n },
        { ...terms, reward: REWARD - 1n },
        { ...terms, deadline: terms.deadline + 1n },
        { ...terms, maxRevisions: terms.maxRevisions + 1n },
        { ...terms, poster: wallets.other.account.address },
      ]) {
        const consent = await signConsent(fx, owner, "claim", covered, { agentId: victimAgent, terms: other });
        await viem.assertions.revertWithCustomErrorWithArgs(
          escrow.write.claimBySig([covered, victimAgent, consent], as),
          escrow,
          "RunEscrowInvalidConsent",
          [getAddress(owner.account.address)],
        );
      }
      // Consented to these very terms, the claim goes through.
      await wait(
        publicClient,
        escrow.write.claimBySig(
          [covered, victimAgent, await signConsent(fx, owner, "claim", covered, { agentId: victimAgent, terms })],
          as,
        ),
      );
      assert.equal((await escrow.read.getRun([covered])).state, State.Claimed);
      assert.equal(await escrow.read.coverOf([covered]), 2n * REWARD);
    });
  });

  describe("smart accounts (ERC-1271)", () => {
    it("a smart-account poster and a smart-account agent owner consent through isValidSignature", async () => {
      const fx = await fixture();
      const { escrow, usdc, vault, identity, wallets, publicClient } = fx;
      const as = { account: wallets.relayer.account };
      // Poster and agent owner are contracts whose keys are poster2 / agentOwner2.
      const posterAccount = await viem.deployContract("ERC1271WalletMock", [wallets.poster2.account.address]);
      const ownerAccount = await viem.deployContract("ERC1271WalletMock", [wallets.agentOwner2.account.address]);
      const agentId = await mintAgent(fx, ownerAccount.address);
      await wait(
        publicClient,
        usdc.write.mint([wallets.other.account.address, MIN_STAKE], { account: wallets.other.account }),
      );
      await wait(publicClient, usdc.write.approve([vault.address, MIN_STAKE], { account: wallets.other.account }));
      await wait(publicClient, vault.write.deposit([agentId, MIN_STAKE], { account: wallets.other.account }));
      // A sponsored run whose poster is the smart account (a SPONSOR_ROLE stand-in pays, as the SubscriptionVault
      // does for a subscriber).
      const sponsor = { account: wallets.admin.account };
      await wait(
        publicClient,
        escrow.write.grantRole([await escrow.read.SPONSOR_ROLE(), wallets.admin.account.address], sponsor),
      );
      await wait(publicClient, usdc.write.mint([wallets.admin.account.address, REWARD + FEE], sponsor));
      await wait(publicClient, usdc.write.approve([escrow.address, REWARD + FEE], sponsor));
      const now = (await publicClient.getBlock()).timestamp;
      await wait(
        publicClient,
        escrow.write.createSponsoredRun([posterAccount.address, REWARD, now + DAY, 0, ""], sponsor),
      );
      const runId = await escrow.read.runCount();

      // The smart account's signer signs; the consent's signer is the account itself.
      const via = async (
        key: typeof wallets.poster2,
        account: `0x${string}`,
        action: "claim" | "submit" | "approve",
        opts = {},
      ) => ({
        ...(await signConsent(
          fx,
          {
            account: { address: account },
            signTypedData: (a: never) => key.signTypedData({ ...(a as object), account: key.account } as never),
          },
          action,
          runId,
          opts,
        )),
      });
      await wait(
        publicClient,
        escrow.write.claimBySig(
          [runId, agentId, await via(wallets.agentOwner2, ownerAccount.address, "claim", { agentId })],
          as,
        ),
      );
      const h = bytes32("from a smart account");
      await wait(
        publicClient,
        escrow.write.submitBySig(
          [runId, h, await via(wallets.agentOwner2, ownerAccount.address, "submit", { deliverableHash: h })],
          as,
        ),
      );
      // A signature by any other key is refused by the account.
      const wrongKey = await via(wallets.other, posterAccount.address, "approve");
      await viem.assertions.revertWithCustomError(
        escrow.write.approveBySig([runId, wrongKey], as),
        escrow,
        "RunEscrowInvalidConsent",
      );
      const before = await usdc.read.balanceOf([ownerAccount.address]);
      await wait(
        publicClient,
        escrow.write.approveBySig([runId, await via(wallets.poster2, posterAccount.address, "approve")], as),
      );
      await wait(publicClient, escrow.write.payRewards([[agentId]], as));
      assert.equal(
        await usdc.read.balanceOf([ownerAccount.address]),
        before + REWARD,
        "reward to the smart-account owner",
      );
      assert.equal((await escrow.read.getRun([runId])).state, State.Completed);
      assert.equal(await identity.read.ownerOf([agentId]), getAddress(ownerAccount.address));
    });
  });
});

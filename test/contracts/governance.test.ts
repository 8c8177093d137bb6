import assert from "node:assert/strict";
import { network } from "hardhat";
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  parseEther,
  parseUnits,
  toHex,
  zeroAddress,
} from "viem";

const { viem, networkHelpers } = await network.create();
const { loadFixture, time } = networkHelpers;

const tokens = (n: number | string) => parseEther(String(n));
const usd = (n: number | string) => parseUnits(String(n), 6);
const DAY = 86_400n;

// Governor.ProposalState
const State = { Pending: 0, Active: 1, Canceled: 2, Defeated: 3, Succeeded: 4, Queued: 5, Expired: 6, Executed: 7 };
// GovernorCountingSimple.VoteType
const Vote = { Against: 0, For: 1, Abstain: 2 };

async function deployGovernance() {
  const ws = await viem.getWalletClients();
  if (ws.length < 7) throw new Error("need at least 7 accounts");
  const [deployer, alice, bob, carol, dave, recipient, outsider] = [
    ws[0]!,
    ws[1]!,
    ws[2]!,
    ws[3]!,
    ws[4]!,
    ws[5]!,
    ws[6]!,
  ];
  const publicClient = await viem.getPublicClient();
  const token = await viem.deployContract("AgentHubToken", [[deployer.account.address], [tokens(100_000_000)]]);
  const timelock = await viem.deployContract("AgentHubTimelock", [
    2n * DAY,
    [],
    [zeroAddress],
    deployer.account.address,
  ]);
  const governor = await viem.deployContract("AgentHubGovernor", [token.address, timelock.address]);

  const PROPOSER_ROLE = await timelock.read.PROPOSER_ROLE();
  const CANCELLER_ROLE = await timelock.read.CANCELLER_ROLE();
  const DEFAULT_ADMIN_ROLE = await timelock.read.DEFAULT_ADMIN_ROLE();
  await timelock.write.grantRole([PROPOSER_ROLE, governor.address]);
  await timelock.write.grantRole([CANCELLER_ROLE, governor.address]);
  await timelock.write.renounceRole([DEFAULT_ADMIN_ROLE, deployer.account.address]);

  // voters: alice 3M, bob 2M, carol 1M (6M total, quorum is 4M), dave 50k (below the 100k threshold)
  for (const [w, n] of [
    [alice, 3_000_000],
    [bob, 2_000_000],
    [carol, 1_000_000],
    [dave, 50_000],
  ] as const) {
    await token.write.transfer([w.account.address, tokens(n)]);
    await token.write.delegate([w.account.address], { account: w.account });
  }

  // treasury held by the timelock: USDC, AHUB and ETH
  const usdc = await viem.deployContract("MockERC20");
  await usdc.write.mint([timelock.address, usd(10_000)]);
  await token.write.transfer([timelock.address, tokens(1_000_000)]);
  await deployer.sendTransaction({ to: timelock.address, value: parseEther("5") });

  await time.increase(1); // checkpoints strictly in the past
  return {
    token,
    timelock,
    governor,
    usdc,
    publicClient,
    deployer,
    alice,
    bob,
    carol,
    dave,
    recipient,
    outsider,
    roles: { PROPOSER_ROLE, CANCELLER_ROLE, DEFAULT_ADMIN_ROLE },
  };
}

type Ctx = Awaited<ReturnType<typeof deployGovernance>>;

function treasuryProposal(
  ctx: Ctx,
  description = "# Treasury grant\n\nPay 1,000 USDC and 1 ETH; raise timelock delay",
) {
  const targets: Address[] = [ctx.usdc.address, ctx.recipient.account.address, ctx.timelock.address];
  const values = [0n, parseEther("1"), 0n];
  const calldatas: Hex[] = [
    encodeFunctionData({
      abi: ctx.usdc.abi,
      functionName: "transfer",
      args: [ctx.recipient.account.address, usd(1_000)],
    }),
    "0x",
    encodeFunctionData({ abi: ctx.timelock.abi, functionName: "updateDelay", args: [3n * DAY] }),
  ];
  return { targets, values, calldatas, description, descriptionHash: keccak256(toHex(description)) };
}

async function gasOf(ctx: Ctx, hash: Promise<Hex> | Hex) {
  const receipt = await ctx.publicClient.waitForTransactionReceipt({ hash: await hash });
  assert.equal(receipt.status, "success");
  return receipt.gasUsed;
}

async function propose(ctx: Ctx, p: ReturnType<typeof treasuryProposal>, proposer = ctx.alice) {
  const { result: proposalId } = await ctx.publicClient.simulateContract({
    address: ctx.governor.address,
    abi: ctx.governor.abi,
    functionName: "propose",
    args: [p.targets, p.values, p.calldatas, p.description],
    account: proposer.account,
  });
  const gas = await gasOf(
    ctx,
    ctx.governor.write.propose([p.targets, p.values, p.calldatas, p.description], { account: proposer.account }),
  );
  return { proposalId, gas };
}

async function signBallot(ctx: Ctx, voter: Ctx["alice"], proposalId: bigint, support: number, chainId = 84532) {
  const nonce = await ctx.governor.read.nonces([voter.account.address]);
  return voter.signTypedData({
    account: voter.account,
    domain: { name: "AgentHub Governor", version: "1", chainId, verifyingContract: ctx.governor.address },
    types: {
      Ballot: [
        { name: "proposalId", type: "uint256" },
        { name: "support", type: "uint8" },
        { name: "voter", type: "address" },
        { name: "nonce", type: "uint256" },
      ],
    },
    primaryType: "Ballot",
    message: { proposalId, support, voter: voter.account.address, nonce },
  });
}

describe("Governance (AgentHubToken, AgentHubGovernor, AgentHubTimelock)", () => {
  describe("token", () => {
    it("has the fixed supply, 18 decimals and a timestamp clock", async () => {
      const { token, deployer, alice } = await loadFixture(deployGovernance);
      assert.equal(await token.read.name(), "AgentHub");
      assert.equal(await token.read.symbol(), "AHUB");
      assert.equal(await token.read.decimals(), 18);
      assert.equal(await token.read.totalSupply(), tokens(100_000_000));
      assert.equal(
        await token.read.balanceOf([deployer.account.address]),
        tokens(100_000_000 - 3_000_000 - 2_000_000 - 1_000_000 - 50_000 - 1_000_000),
      );
      assert.equal(await token.read.CLOCK_MODE(), "mode=timestamp");
      assert.equal(BigInt(await token.read.clock()), BigInt(await time.latest()));
      assert.equal(await token.read.getVotes([alice.account.address]), tokens(3_000_000));
      assert.equal(await token.read.getVotes([deployer.account.address]), 0n); // never delegated
    });

    it("mints a split allocation exactly once and refuses one that is not the whole supply", async () => {
      const { alice, bob } = await loadFixture(deployGovernance);
      const holders = [alice.account.address, bob.account.address];
      const split = await viem.deployContract("AgentHubToken", [holders, [tokens(60_000_000), tokens(40_000_000)]]);
      assert.equal(await split.read.balanceOf([alice.account.address]), tokens(60_000_000));
      assert.equal(await split.read.balanceOf([bob.account.address]), tokens(40_000_000));
      assert.equal(await split.read.totalSupply(), tokens(100_000_000));
      await assert.rejects(
        viem.deployContract("AgentHubToken", [holders, [tokens(60_000_000), tokens(39_999_999)]]),
        /AgentHubTokenAllocationNotSupply/,
      );
      await assert.rejects(
        viem.deployContract("AgentHubToken", [holders, [tokens(100_000_000)]]),
        /AgentHubTokenInvalidAllocation/,
      );
      await assert.rejects(viem.deployContract("AgentHubToken", [[], []]), /AgentHubTokenInvalidAllocation/);
    });

    it("supports gasless delegation (delegateBySig)", async () => {
      const { token, deployer, outsider } = await loadFixture(deployGovernance);
      await token.write.transfer([outsider.account.address, tokens(10)]);
      const nonce = await token.read.nonces([outsider.account.address]);
      const expiry = BigInt(await time.latest()) + 3600n;
      const sig = await outsider.signTypedData({
        account: outsider.account,
        domain: { name: "AgentHub", version: "1", chainId: 84532, verifyingContract: token.address },
        types: {
          Delegation: [
            { name: "delegatee", type: "address" },
            { name: "nonce", type: "uint256" },
            { name: "expiry", type: "uint256" },
          ],
        },
        primaryType: "Delegation",
        message: { delegatee: outsider.account.address, nonce, expiry },
      });
      const r = `0x${sig.slice(2, 66)}` as Hex;
      const s = `0x${sig.slice(66, 130)}` as Hex;
      const v = Number.parseInt(sig.slice(130, 132), 16);
      await token.write.delegateBySig([outsider.account.address, nonce, expiry, v, r, s], {
        account: deployer.account,
      });
      assert.equal(
        getAddress(await token.read.delegates([outsider.account.address])),
        getAddress(outsider.account.address),
      );
      assert.equal(await token.read.getVotes([outsider.account.address]), tokens(10));
    });
  });

  describe("setup", () => {
    it("governor parameters: 1 day delay, 7 day period, 100k threshold, 4% quorum, timestamp clock", async () => {
      const { governor, token, timelock } = await loadFixture(deployGovernance);
      assert.equal(await governor.read.name(), "AgentHub Governor");
      assert.equal(await governor.read.version(), "1");
      assert.equal(await governor.read.votingDelay(), DAY);
      assert.equal(await governor.read.votingPeriod(), 7n * DAY);
      assert.equal(await governor.read.proposalThreshold(), tokens(100_000));
      assert.equal(await governor.read.quorumNumerator(), 4n);
      assert.equal(await governor.read.CLOCK_MODE(), "mode=timestamp");
      assert.equal(getAddress(await governor.read.token()), getAddress(token.address));
      assert.equal(getAddress(await governor.read.timelock()), getAddress(timelock.address));
      assert.equal(await governor.read.COUNTING_MODE(), "support=bravo&quorum=for,abstain");
      const now = BigInt(await time.latest());
      assert.equal(await governor.read.quorum([now - 1n]), tokens(4_000_000));
    });

    it("the governor refuses a token that is not on the timestamp clock (AgentHubGovernorInvalidClock)", async () => {
      const { governor, timelock } = await loadFixture(deployGovernance);
      const blockClock = await viem.deployContract("MockBlockClockVotes");
      await viem.assertions.revertWithCustomError(
        viem.deployContract("AgentHubGovernor", [blockClock.address, timelock.address]),
        governor,
        "AgentHubGovernorInvalidClock",
      );
    });

    it("the timelock (2 days) is self-administered and the governor is its only proposer", async () => {
      const { timelock, governor, deployer, alice, roles } = await loadFixture(deployGovernance);
      assert.equal(await timelock.read.getMinDelay(), 2n * DAY);
      assert.equal(await timelock.read.hasRole([roles.DEFAULT_ADMIN_ROLE, deployer.account.address]), false);
      assert.equal(await timelock.read.hasRole([roles.DEFAULT_ADMIN_ROLE, timelock.address]), true);
      assert.equal(await timelock.read.hasRole([roles.PROPOSER_ROLE, governor.address]), true);
      assert.equal(await timelock.read.hasRole([roles.CANCELLER_ROLE, governor.address]), true);
      assert.equal(await timelock.read.hasRole([roles.PROPOSER_ROLE, deployer.account.address]), false);
      assert.equal(await timelock.read.hasRole([await timelock.read.EXECUTOR_ROLE(), zeroAddress]), true);
      // the deployer can no longer grant roles
      await viem.assertions.revertWithCustomErrorWithArgs(
        timelock.write.grantRole([roles.PROPOSER_ROLE, deployer.account.address]),
        timelock,
        "AccessControlUnauthorizedAccount",
        [getAddress(deployer.account.address), roles.DEFAULT_ADMIN_ROLE],
      );
      // nobody but the governor can schedule
      for (const w of [deployer, alice]) {
        await viem.assertions.revertWithCustomErrorWithArgs(
          timelock.write.schedule(
            [alice.account.address, 0n, "0x", toHex(0, { size: 32 }), toHex(1, { size: 32 }), 2n * DAY],
            {
              account: w.account,
            },
          ),
          timelock,
          "AccessControlUnauthorizedAccount",
          [getAddress(w.account.address), roles.PROPOSER_ROLE],
        );
      }
    });
  });

  describe("proposal lifecycle", () => {
    it("propose -> Pending -> Active -> votes (direct, with reason, by signature) -> Succeeded -> Queued -> Executed", async () => {
      const ctx = await loadFixture(deployGovernance);
      const { governor, timelock, usdc, alice, bob, carol, deployer, outsider, recipient, publicClient } = ctx;
      const p = treasuryProposal(ctx);
      const { proposalId, gas: proposeGas } = await propose(ctx, p);
      assert.equal(proposalId, await governor.read.hashProposal([p.targets, p.values, p.calldatas, p.descriptionHash]));
      assert.equal(await governor.read.state([proposalId]), State.Pending);
      assert.equal(getAddress(await governor.read.proposalProposer([proposalId])), getAddress(alice.account.address));
      const snapshot = await governor.read.proposalSnapshot([proposalId]);
      const deadline = await governor.read.proposalDeadline([proposalId]);
      assert.equal(deadline - snapshot, 7n * DAY);

      // voting is closed while Pending
      await viem.assertions.revertWithCustomError(
        governor.write.castVote([proposalId, Vote.For], { account: alice.account }),
        governor,
        "GovernorUnexpectedProposalState",
      );

      await time.increaseTo(snapshot + 1n);
      assert.equal(await governor.read.state([proposalId]), State.Active);

      // direct vote
      const castVoteHash = governor.write.castVote([proposalId, Vote.For], { account: alice.account });
      await viem.assertions.emitWithArgs(castVoteHash, governor, "VoteCast", [
        getAddress(alice.account.address),
        proposalId,
        Vote.For,
        tokens(3_000_000),
        "",
      ]);
      const castVoteGas = await gasOf(ctx, castVoteHash);
      await viem.assertions.revertWithCustomErrorWithArgs(
        governor.write.castVote([proposalId, Vote.Against], { account: alice.account }),
        governor,
        "GovernorAlreadyCastVote",
        [getAddress(alice.account.address)],
      );

      // vote with reason
      const reasonHash = governor.write.castVoteWithReason([proposalId, Vote.For, "Grants grow the ecosystem"], {
        account: bob.account,
      });
      await viem.assertions.emitWithArgs(reasonHash, governor, "VoteCast", [
        getAddress(bob.account.address),
        proposalId,
        Vote.For,
        tokens(2_000_000),
        "Grants grow the ecosystem",
      ]);
      const castVoteWithReasonGas = await gasOf(ctx, reasonHash);

      // gasless vote: carol signs, a relayer (deployer) submits
      const wrongChain = await signBallot(ctx, carol, proposalId, Vote.Against, 1);
      await viem.assertions.revertWithCustomErrorWithArgs(
        governor.write.castVoteBySig([proposalId, Vote.Against, carol.account.address, wrongChain], {
          account: deployer.account,
        }),
        governor,
        "GovernorInvalidSignature",
        [getAddress(carol.account.address)],
      );
      const sig = await signBallot(ctx, carol, proposalId, Vote.Against);
      // a signature can't be re-targeted to another support value or voter
      await viem.assertions.revertWithCustomError(
        governor.write.castVoteBySig([proposalId, Vote.For, carol.account.address, sig], { account: deployer.account }),
        governor,
        "GovernorInvalidSignature",
      );
      await viem.assertions.revertWithCustomError(
        governor.write.castVoteBySig([proposalId, Vote.Against, outsider.account.address, sig], {
          account: deployer.account,
        }),
        governor,
        "GovernorInvalidSignature",
      );
      const bySigHash = governor.write.castVoteBySig([proposalId, Vote.Against, carol.account.address, sig], {
        account: deployer.account,
      });
      await viem.assertions.emitWithArgs(bySigHash, governor, "VoteCast", [
        getAddress(carol.account.address),
        proposalId,
        Vote.Against,
        tokens(1_000_000),
        "",
      ]);
      const castVoteBySigGas = await gasOf(ctx, bySigHash);
      // replay of the same signature: the nonce moved on
      await viem.assertions.revertWithCustomErrorWithArgs(
        governor.write.castVoteBySig([proposalId, Vote.Against, carol.account.address, sig], {
          account: deployer.account,
        }),
        governor,
        "GovernorInvalidSignature",
        [getAddress(carol.account.address)],
      );
      assert.equal(await governor.read.hasVoted([proposalId, carol.account.address]), true);
      assert.deepEqual(await governor.read.proposalVotes([proposalId]), [tokens(1_000_000), tokens(5_000_000), 0n]);

      // queue is only possible once Succeeded
      await viem.assertions.revertWithCustomError(
        governor.write.queue([p.targets, p.values, p.calldatas, p.descriptionHash]),
        governor,
        "GovernorUnexpectedProposalState",
      );
      await time.increaseTo(deadline + 1n);
      assert.equal(await governor.read.state([proposalId]), State.Succeeded);
      assert.equal(await governor.read.proposalNeedsQueuing([proposalId]), true);

      const queueHash = governor.write.queue([p.targets, p.values, p.calldatas, p.descriptionHash], {
        account: outsider.account,
      });
      const queueGas = await gasOf(ctx, queueHash);
      assert.equal(await governor.read.state([proposalId]), State.Queued);
      const eta = await governor.read.proposalEta([proposalId]);
      assert.equal(eta, BigInt(await time.latest()) + 2n * DAY);

      // too early for the timelock
      await viem.assertions.revertWithCustomError(
        governor.write.execute([p.targets, p.values, p.calldatas, p.descriptionHash]),
        timelock,
        "TimelockUnexpectedOperationState",
      );
      await time.increaseTo(eta);
      const usdcBefore = await usdc.read.balanceOf([recipient.account.address]);
      const ethBefore = await publicClient.getBalance({ address: recipient.account.address });
      const executeHash = governor.write.execute([p.targets, p.values, p.calldatas, p.descriptionHash], {
        account: outsider.account,
      });
      await viem.assertions.emitWithArgs(executeHash, governor, "ProposalExecuted", [proposalId]);
      const executeGas = await gasOf(ctx, executeHash);
      assert.equal(await governor.read.state([proposalId]), State.Executed);
      assert.equal(await usdc.read.balanceOf([recipient.account.address]), usdcBefore + usd(1_000));
      assert.equal(await publicClient.getBalance({ address: recipient.account.address }), ethBefore + parseEther("1"));
      assert.equal(await usdc.read.balanceOf([timelock.address]), usd(9_000));
      assert.equal(await timelock.read.getMinDelay(), 3n * DAY);

      console.log(
        `      gas: propose ${proposeGas}, castVote ${castVoteGas}, castVoteWithReason ${castVoteWithReasonGas}, ` +
          `castVoteBySig ${castVoteBySigGas}, queue ${queueGas}, execute ${executeGas}`,
      );
      // The first vote of a given support value writes two fresh slots (hasVoted + that tally): 2 x 22.1k on top of
      // the 21k intrinsic cost. Later votes (see the next tests) stay under the 80k target.
      assert.ok(castVoteGas <= 85_000n, `first castVote gas ${castVoteGas} <= 85k`);
    });

    it("a proposal below quorum is Defeated and cannot be queued", async () => {
      const ctx = await loadFixture(deployGovernance);
      const { governor, carol, bob } = ctx;
      const p = treasuryProposal(ctx, "# Small grant\n\nOnly carol cares");
      const { proposalId } = await propose(ctx, p, bob);
      await time.increaseTo((await governor.read.proposalSnapshot([proposalId])) + 1n);
      await governor.write.castVote([proposalId, Vote.For], { account: carol.account }); // 1M < 4M quorum
      await time.increaseTo((await governor.read.proposalDeadline([proposalId])) + 1n);
      assert.equal(await governor.read.state([proposalId]), State.Defeated);
      await viem.assertions.revertWithCustomError(
        governor.write.queue([p.targets, p.values, p.calldatas, p.descriptionHash]),
        governor,
        "GovernorUnexpectedProposalState",
      );
    });

    it("a proposal with quorum but more against than for is Defeated", async () => {
      const ctx = await loadFixture(deployGovernance);
      const { governor, alice, bob, carol } = ctx;
      const p = treasuryProposal(ctx, "# Contested");
      const { proposalId } = await propose(ctx, p, carol);
      await time.increaseTo((await governor.read.proposalSnapshot([proposalId])) + 1n);
      await governor.write.castVote([proposalId, Vote.Against], { account: alice.account });
      await governor.write.castVote([proposalId, Vote.For], { account: bob.account });
      await governor.write.castVote([proposalId, Vote.Abstain], { account: carol.account });
      await time.increaseTo((await governor.read.proposalDeadline([proposalId])) + 1n);
      assert.equal(await governor.read.state([proposalId]), State.Defeated);
    });

    it("rejects a proposer below the 100k threshold (GovernorInsufficientProposerVotes)", async () => {
      const ctx = await loadFixture(deployGovernance);
      const { governor, dave, outsider } = ctx;
      const p = treasuryProposal(ctx);
      await viem.assertions.revertWithCustomErrorWithArgs(
        governor.write.propose([p.targets, p.values, p.calldatas, p.description], { account: dave.account }),
        governor,
        "GovernorInsufficientProposerVotes",
        [getAddress(dave.account.address), tokens(50_000), tokens(100_000)],
      );
      await viem.assertions.revertWithCustomErrorWithArgs(
        governor.write.propose([p.targets, p.values, p.calldatas, p.description], { account: outsider.account }),
        governor,
        "GovernorInsufficientProposerVotes",
        [getAddress(outsider.account.address), 0n, tokens(100_000)],
      );
    });

    it("the proposer can cancel while Pending (Canceled); others cannot", async () => {
      const ctx = await loadFixture(deployGovernance);
      const { governor, alice, bob } = ctx;
      const p = treasuryProposal(ctx, "# Withdrawn idea");
      const { proposalId } = await propose(ctx, p);
      await viem.assertions.revertWithCustomError(
        governor.write.cancel([p.targets, p.values, p.calldatas, p.descriptionHash], { account: bob.account }),
        governor,
        "GovernorUnableToCancel",
      );
      await governor.write.cancel([p.targets, p.values, p.calldatas, p.descriptionHash], { account: alice.account });
      assert.equal(await governor.read.state([proposalId]), State.Canceled);
    });

    it("the Expired state is not reachable with TimelockControl: a queued proposal stays executable", async () => {
      // OpenZeppelin 5 only reports Expired for GovernorTimelockCompound's grace period; with a
      // TimelockController a ready operation never expires. Assert that behaviour explicitly.
      const ctx = await loadFixture(deployGovernance);
      const { governor, alice, bob } = ctx;
      const p = treasuryProposal(ctx, "# Late execution");
      const { proposalId } = await propose(ctx, p);
      await time.increaseTo((await governor.read.proposalSnapshot([proposalId])) + 1n);
      await governor.write.castVote([proposalId, Vote.For], { account: alice.account });
      const secondVoteGas = await gasOf(ctx, governor.write.castVote([proposalId, Vote.For], { account: bob.account }));
      console.log(`      gas: castVote (tally slot already set) ${secondVoteGas}`);
      assert.ok(secondVoteGas <= 80_000n, `castVote gas ${secondVoteGas} <= 80k`);
      await time.increaseTo((await governor.read.proposalDeadline([proposalId])) + 1n);
      await governor.write.queue([p.targets, p.values, p.calldatas, p.descriptionHash]);
      await time.increase(365n * DAY);
      assert.equal(await governor.read.state([proposalId]), State.Queued);
      await governor.write.execute([p.targets, p.values, p.calldatas, p.descriptionHash]);
      assert.equal(await governor.read.state([proposalId]), State.Executed);
    });

    it("votes are counted at the snapshot: tokens moved after it do not count", async () => {
      const ctx = await loadFixture(deployGovernance);
      const { governor, token, alice, bob, dave } = ctx;
      const p = treasuryProposal(ctx, "# Snapshot check");
      const { proposalId } = await propose(ctx, p);
      await time.increaseTo((await governor.read.proposalSnapshot([proposalId])) + 1n);
      await token.write.transfer([dave.account.address, tokens(3_000_000)], { account: alice.account });
      await governor.write.castVote([proposalId, Vote.For], { account: alice.account });
      await governor.write.castVote([proposalId, Vote.For], { account: dave.account });
      const [, forVotes] = await governor.read.proposalVotes([proposalId]);
      assert.equal(forVotes, tokens(3_000_000) + tokens(50_000));
      assert.equal(
        await governor.read.getVotes([bob.account.address, BigInt(await time.latest()) - 1n]),
        tokens(2_000_000),
      );
    });
  });
});

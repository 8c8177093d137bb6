// Custody on the stack's fresh deployment: the roles on chain are exactly docs/decisions.md's table (the deployer
// holds none), the emergency Safe (3 of 5) pauses and unpauses while 2 signatures do nothing, and a governance
// proposal changes the fee, after which the next run pays the new fee to the base unit.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { AgentHubGovernorAbi, AgentHubTokenAbi, RunEscrowAbi } from "@agenthub/common/generated/abis";
import { type Address, encodeFunctionData, getAddress, type Hex, keccak256, toBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { faucet, stakedAgent, walletFromKey } from "../support/agents.ts";
import { chainRoleTable, documentedRoleTable, roleHolderNames, safeAbi, signedSafeCall } from "../support/custody.ts";
import {
  claim,
  createDraft,
  feesAccrued,
  fundWithPermit,
  newPoster,
  openRun,
  step,
  usdcBalance,
} from "../support/runs.ts";
import { chain, db, deployments, increaseTime, publicClient } from "../support/stack.ts";

after(() => db.end());

const DAY = 24 * 3600;
const escrow = deployments.contracts.RunEscrow.address;
const timelock = deployments.contracts.AgentHubTimelock.address;
const governor = deployments.contracts.AgentHubGovernor.address;
const safe = deployments.emergencySafe!;
const relayer = privateKeyToAccount(devAccounts.relayer).address;

async function mined(hash: Hex) {
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return receipt;
}

const escrowPaused = () => publicClient.readContract({ address: escrow, abi: RunEscrowAbi, functionName: "paused" });
const feeBps = () => publicClient.readContract({ address: escrow, abi: RunEscrowAbi, functionName: "feeBps" });

/** A Safe owner submits execTransaction carrying `ownerKeys`' signatures for `escrow.<fn>()`. */
async function safeCallsEscrow(fn: "pause" | "unpause", ownerKeys: readonly Hex[]) {
  const data = encodeFunctionData({ abi: RunEscrowAbi, functionName: fn });
  const exec = await signedSafeCall(publicClient, safe, escrow, data, ownerKeys);
  const submitter = walletFromKey(devAccounts.safeOwners[0]);
  return submitter.wallet.sendTransaction({ account: submitter.account, chain, to: safe, data: exec });
}

describe("custody: roles", () => {
  it("the roles on chain are exactly the table in docs/decisions.md (the deployer holds none)", async () => {
    const documented = documentedRoleTable();
    assert.ok(Object.keys(documented).length >= 5, "the table lists the five AccessControl contracts");
    const onChain = await chainRoleTable(publicClient, deployments, roleHolderNames(deployments, relayer));
    assert.deepEqual(onChain, documented);
    const deployer = privateKeyToAccount(devAccounts.deployer).address;
    assert.ok(!JSON.stringify(onChain).includes(deployer), "the deployer renounced everything");
  });

  it("the emergency Safe is a 3-of-5 Safe of the documented owners", async () => {
    const owners = await publicClient.readContract({ address: safe, abi: safeAbi, functionName: "getOwners" });
    const expected = devAccounts.safeOwners.map((key) => privateKeyToAccount(key).address);
    assert.deepEqual([...owners].map((o) => getAddress(o)).sort(), [...expected].sort());
    assert.equal(await publicClient.readContract({ address: safe, abi: safeAbi, functionName: "getThreshold" }), 3n);
  });
});

describe("custody: the emergency Safe pauses", () => {
  after(async () => {
    // Never leave the shared stack paused for the tests that follow.
    if (await escrowPaused()) await mined(await safeCallsEscrow("unpause", devAccounts.safeOwners.slice(2)));
  });

  it("3 owners pause and unpause the escrow; 2 signatures are refused; paused funding answers 503", async () => {
    const poster = await newPoster();
    const before = await usdcBalance(poster.address);
    await assert.rejects(safeCallsEscrow("pause", devAccounts.safeOwners.slice(0, 2)), /GS020/);
    assert.equal(await escrowPaused(), false);

    await mined(await safeCallsEscrow("pause", devAccounts.safeOwners.slice(0, 3)));
    assert.equal(await escrowPaused(), true);
    const draft = await createDraft(poster.key, poster.address);
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const refused = await fundWithPermit(poster.key, draft.body.run);
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "CONTRACT_PAUSED");
    assert.equal(await usdcBalance(poster.address), before, "nothing moved while paused");

    await assert.rejects(safeCallsEscrow("unpause", devAccounts.safeOwners.slice(3)), /GS020/);
    await mined(await safeCallsEscrow("unpause", devAccounts.safeOwners.slice(2)));
    assert.equal(await escrowPaused(), false);
    const funded = await fundWithPermit(poster.key, draft.body.run);
    assert.equal(funded.status, 200, JSON.stringify(funded.body));
    assert.equal(
      await usdcBalance(poster.address),
      before - BigInt(draft.body.run.reward) - BigInt(draft.body.run.fee),
    );
  });
});

describe("custody: protocol parameters change through governance", () => {
  const holder = walletFromKey(devAccounts.governanceHolder);
  const feeProposal = (bps: bigint) => ({
    targets: [escrow] as Address[],
    values: [0n],
    calldatas: [encodeFunctionData({ abi: RunEscrowAbi, functionName: "setFeeBps", args: [bps] })] as Hex[],
    description: `# Platform fee ${bps} bps\n\nSet RunEscrow.feeBps to ${bps}.`,
  });
  type Proposal = ReturnType<typeof feeProposal>;
  const governorCall = async (functionName: "propose" | "castVote" | "queue" | "execute", args: unknown[]) =>
    mined(
      await holder.wallet.writeContract({
        address: governor,
        abi: AgentHubGovernorAbi,
        functionName,
        args: args as never,
        account: holder.account,
        chain,
      }),
    );
  const idOf = (p: Proposal) =>
    publicClient.readContract({
      address: governor,
      abi: AgentHubGovernorAbi,
      functionName: "hashProposal",
      args: [p.targets, p.values, p.calldatas, keccak256(toBytes(p.description))],
    });
  const execute = (p: Proposal) =>
    governorCall("execute", [p.targets, p.values, p.calldatas, keccak256(toBytes(p.description))]);

  it("a proposal sets the fee to 3% (propose, vote, queue, execute on chain time); the next run pays 3%", async () => {
    // The local community allocation (dev account #2) votes for itself: 35M votes, quorum is 4M.
    await mined(
      await holder.wallet.writeContract({
        address: deployments.contracts.AgentHubToken.address,
        abi: AgentHubTokenAbi,
        functionName: "delegate",
        args: [holder.address],
        account: holder.account,
        chain,
      }),
    );
    await increaseTime(1);
    // The change and its restoration pass together, so the shared stack is back at 5% afterwards.
    const lower = feeProposal(300n);
    const restore = feeProposal(500n);
    for (const p of [lower, restore]) await governorCall("propose", [p.targets, p.values, p.calldatas, p.description]);
    await increaseTime(DAY + 1);
    for (const p of [lower, restore]) await governorCall("castVote", [await idOf(p), 1]);
    await increaseTime(7 * DAY + 1);
    for (const p of [lower, restore]) {
      await governorCall("queue", [p.targets, p.values, p.calldatas, keccak256(toBytes(p.description))]);
    }
    assert.equal(await feeBps(), 500n, "nothing changes before the timelock delay");
    await assert.rejects(execute(lower), /TimelockUnexpectedOperationState|reverted/);
    await increaseTime(2 * DAY + 1);
    try {
      await execute(lower);
      assert.equal(await feeBps(), 300n);

      const reward = 10_000_000n;
      const poster = await newPoster(reward * 2n);
      const agent = await stakedAgent();
      const run = await openRun(poster, { reward });
      assert.equal(run.fee, "300000", "3% of 10 USDC");
      assert.equal(await usdcBalance(poster.address), reward * 2n - reward - 300_000n);
      const feesBefore = await feesAccrued();
      const ownerBefore = await usdcBalance(agent.owner.address);
      const id = run.bountyId as number;
      for (const res of [
        await claim(agent.owner.key, agent.owner.address, id, agent.agentId),
        await step(agent.owner.key, id, "start", "start-run"),
        await step(agent.owner.key, id, "submit", "submit-run", { deliverable: { answer: "a + b" } }),
        await step(poster.key, id, "approve", "approve-run"),
      ]) {
        assert.equal(res.status, 200, JSON.stringify(res.body));
      }
      assert.equal(await feesAccrued(), feesBefore + 300_000n, "the escrow keeps exactly 3% for the treasury");
      assert.equal(await usdcBalance(agent.owner.address), ownerBefore + reward);
      // Accrued fees reach the treasury in one sweep, which anyone may send.
      const treasuryBefore = await usdcBalance(timelock);
      const accrued = await feesAccrued();
      const sweeper = await newPoster(0n);
      await faucet(sweeper.address, 0n, 10n ** 17n);
      const { account, wallet } = walletFromKey(sweeper.key);
      const sweep = await wallet.writeContract({
        address: deployments.contracts.RunEscrow.address,
        abi: RunEscrowAbi,
        functionName: "sweepFees",
        account,
        chain,
      });
      await publicClient.waitForTransactionReceipt({ hash: sweep });
      assert.equal(await usdcBalance(timelock), treasuryBefore + accrued);
    } finally {
      await execute(restore);
      assert.equal(await feeBps(), 500n);
    }
  });

  it("nobody but the timelock sets a parameter: the deployer, the relayer and a Safe owner are refused", async () => {
    for (const key of [devAccounts.deployer, devAccounts.relayer, devAccounts.safeOwners[0]]) {
      const { wallet, account } = walletFromKey(key);
      await assert.rejects(
        wallet.writeContract({
          address: escrow,
          abi: RunEscrowAbi,
          functionName: "setFeeBps",
          args: [0n],
          account,
          chain,
        }),
        /AccessControlUnauthorizedAccount/,
      );
    }
  });
});

// Custody on the stack's fresh deployment: the roles on chain are exactly docs/decisions.md's table (the deployer
// holds none), the emergency Safe (3 of 5) pauses and unpauses while 2 signatures do nothing, and a governance
// proposal changes the fee, after which the next run pays the new fee to the base unit.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import {
  AgentHubGovernorAbi,
  AgentHubTokenAbi,
  RunEscrowAbi,
  StakeVaultAbi,
  TestUSDCAbi,
} from "@agenthub/common/generated/abis";
import { type Address, encodeFunctionData, getAddress, type Hex, keccak256, toBytes } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { faucet, signedAction, stakedAgent, walletFromKey } from "../support/agents.ts";
import { chainRoleTable, documentedRoleTable, roleHolderNames, safeAbi, signedSafeCall } from "../support/custody.ts";
import {
  chainTime,
  claim,
  createDraft,
  feesAccrued,
  fundWithAuthorization,
  newPoster,
  openRun,
  signFundingAuthorization,
  step,
  usdcBalance,
} from "../support/runs.ts";
import { api, chain, db, deployments, increaseTime, publicClient, waitUntil } from "../support/stack.ts";

after(() => db.end());

const DAY = 24 * 3600;
const escrow = deployments.contracts.RunEscrow.address;
const vault = deployments.contracts.StakeVault.address;
const timelock = deployments.contracts.AgentHubTimelock.address;
const governor = deployments.contracts.AgentHubGovernor.address;
const safe = deployments.emergencySafe!;
const relayer = privateKeyToAccount(devAccounts.relayer).address;

function ok(res: { status: number; body: any }) {
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

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

  it("the deployer holds no governance tokens and no votes: the whole supply sits with the documented allocation", async () => {
    const token = { address: deployments.contracts.AgentHubToken.address, abi: AgentHubTokenAbi } as const;
    const deployer = privateKeyToAccount(devAccounts.deployer).address;
    const read = (functionName: "balanceOf" | "getVotes", who: Address) =>
      publicClient.readContract({ ...token, functionName, args: [who] });
    assert.equal(await read("balanceOf", deployer), 0n);
    assert.equal(await read("getVotes", deployer), 0n);
    // The allocation (docs/decisions.md, "Initial token allocation"): 40% treasury, 35% community, 25% team.
    const supply = await publicClient.readContract({ ...token, functionName: "totalSupply" });
    assert.equal(supply, 100_000_000n * 10n ** 18n);
    assert.equal(await read("balanceOf", timelock), (supply * 40n) / 100n);
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
    const refused = await fundWithAuthorization(poster.key, draft.body.run);
    assert.equal(refused.status, 503, JSON.stringify(refused.body));
    assert.equal(refused.body.error.code, "CONTRACT_PAUSED");
    assert.equal(await usdcBalance(poster.address), before, "nothing moved while paused");

    await assert.rejects(safeCallsEscrow("unpause", devAccounts.safeOwners.slice(3)), /GS020/);
    await mined(await safeCallsEscrow("unpause", devAccounts.safeOwners.slice(2)));
    assert.equal(await escrowPaused(), false);
    const funded = await fundWithAuthorization(poster.key, draft.body.run);
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
  /** One proposal setting StakeVault.minStake and RunEscrow.claimTimeout. */
  const stakeRulesProposal = (minStake: bigint, timeoutSeconds: number): Proposal => ({
    targets: [vault, escrow],
    values: [0n, 0n],
    calldatas: [
      encodeFunctionData({ abi: StakeVaultAbi, functionName: "setMinStake", args: [minStake] }),
      encodeFunctionData({ abi: RunEscrowAbi, functionName: "setClaimTimeout", args: [BigInt(timeoutSeconds)] }),
    ],
    description: `# Stake rules\n\nMinimum stake ${minStake} base units, claim timeout ${timeoutSeconds} s.`,
  });
  const delegate = async () => {
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
  };
  /** Proposes, votes for, queues and (after the timelock delay) makes executable every proposal, on chain time. */
  const passAll = async (proposals: Proposal[], whileQueued?: () => Promise<void>) => {
    for (const p of proposals) await governorCall("propose", [p.targets, p.values, p.calldatas, p.description]);
    await increaseTime(DAY + 1);
    for (const p of proposals) await governorCall("castVote", [await idOf(p), 1]);
    await increaseTime(7 * DAY + 1);
    for (const p of proposals) {
      await governorCall("queue", [p.targets, p.values, p.calldatas, keccak256(toBytes(p.description))]);
    }
    await whileQueued?.();
    await increaseTime(2 * DAY + 1);
  };
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
    await delegate();
    // The change and its restoration pass together, so the shared stack is back at 5% afterwards.
    const lower = feeProposal(300n);
    const restore = feeProposal(500n);
    await passAll([lower, restore], async () => {
      assert.equal(await feeBps(), 500n, "nothing changes before the timelock delay");
      await assert.rejects(execute(lower), /TimelockUnexpectedOperationState|reverted/);
    });
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

  it("a proposal raises the minimum stake and shortens the claim timeout; the API checks and shows the new values", async () => {
    const minStake = () => publicClient.readContract({ address: vault, abi: StakeVaultAbi, functionName: "minStake" });
    const timeout = () =>
      publicClient.readContract({ address: escrow, abi: RunEscrowAbi, functionName: "claimTimeout" });
    assert.equal(await minStake(), 20_000_000n);
    assert.equal(await timeout(), BigInt(7 * DAY));
    // Agents staked before the change: one at exactly the old minimum, one with room to spare.
    const atOldMinimum = await stakedAgent(20_000_000n);
    const roomy = await stakedAgent(40_000_000n);
    const agentView = async (id: number) => ok(await api("GET", `/api/agents/${id}`));
    const stakeView = async (id: number) => ok(await api("GET", `/api/agents/${id}/stake`));
    assert.equal((await agentView(atOldMinimum.agentId)).status, "PROVISIONAL");
    assert.equal((await stakeView(atOldMinimum.agentId)).minimumStake, "20000000");

    await delegate();
    const raise = stakeRulesProposal(30_000_000n, 3 * DAY);
    const restore = stakeRulesProposal(20_000_000n, 7 * DAY);
    await passAll([raise, restore]);
    try {
      await execute(raise);
      assert.equal(await minStake(), 30_000_000n);
      assert.equal(await timeout(), BigInt(3 * DAY));

      // The API reads the parameters per block (its clock caches the latest block for at most 500 ms).
      await waitUntil("the API shows the new minimum stake", async () =>
        (await stakeView(atOldMinimum.agentId)).minimumStake === "30000000" ? true : undefined,
      );
      const stake = await stakeView(atOldMinimum.agentId);
      assert.equal(stake.isStaked, false);
      assert.equal(stake.canClaimRuns, false);
      assert.equal(stake.status, "UNVERIFIED", "20 USDC is below the new minimum");
      assert.equal((await agentView(atOldMinimum.agentId)).status, "UNVERIFIED");
      assert.equal((await agentView(roomy.agentId)).status, "PROVISIONAL");

      const poster = await newPoster();
      const run = await openRun(poster, { reward: 5_000_000n });
      const id = run.bountyId;
      const eligibility = ok(await api("GET", `/api/runs/${id}/claim-eligibility?agentId=${atOldMinimum.agentId}`));
      assert.equal(eligibility.eligible, false);
      assert.deepEqual(eligibility.reasons, ["INSUFFICIENT_STAKE"]);
      assert.equal(eligibility.agent.hasMinStake, false);
      assert.match(eligibility.messages[0], /at least 30000000/);
      // The claim is refused by the API before anything is sent (the vault would refuse it too).
      const refused = await claim(atOldMinimum.owner.key, atOldMinimum.owner.address, id, atOldMinimum.agentId);
      assert.equal(refused.status, 403, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, "INSUFFICIENT_STAKE");
      // A stake below the new minimum is refused as a deposit amount too.
      const small = await api("POST", `/api/agents/${roomy.agentId}/stake`, {
        body: { amount: "25000000", txHash: `0x${"ab".repeat(32)}`, walletAddress: roomy.walletAddress },
      });
      assert.equal(small.status, 400, JSON.stringify(small.body));
      assert.equal(small.body.error.code, "INSUFFICIENT_STAKE");

      // The claim timeout: the claim answer names the new deadline, and the poster may slash after 3 days.
      const claimed = ok(await claim(roomy.owner.key, roomy.owner.address, id, roomy.agentId));
      const claimedAt = BigInt(Math.floor(Date.parse(claimed.run.claimedAt) / 1000));
      const slashableAt = new Date(Number(claimedAt + BigInt(3 * DAY)) * 1000).toISOString();
      assert.ok(claimed.message.includes(`submit before ${slashableAt}`), claimed.message);
      const early = await step(poster.key, id, "timeout-slash", "timeout-slash");
      assert.equal(early.status, 409, JSON.stringify(early.body));
      assert.equal(early.body.error.code, "TIMEOUT_NOT_REACHED");
      assert.ok(early.body.error.message.includes(slashableAt), early.body.error.message);
      await increaseTime(3 * DAY + 1);
      const slashed = ok(await step(poster.key, id, "timeout-slash", "timeout-slash"));
      assert.equal(slashed.run.state, "TIMED_OUT", "3 days, not the former 7, after the claim");
    } finally {
      await execute(restore);
      assert.equal(await minStake(), 20_000_000n);
      assert.equal(await timeout(), BigInt(7 * DAY));
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

describe("custody: a compromised relayer key cannot move a poster's USDC", () => {
  it("neither the poster's allowance nor its funding authorization for other terms; balances to the base unit", async () => {
    const reward = 10_000_000n;
    const fee = 500_000n;
    const poster = await newPoster(100_000_000n);
    await faucet(poster.address, 0n, 10n ** 17n);
    const draft = await createDraft(poster.key, poster.address, { reward, maxRevisions: 2 });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const run = draft.body.run;
    // The worst case: the poster left an unlimited allowance to the escrow, and signed a funding authorization that
    // the attacker holding the relayer's key has seen.
    const { wallet: posterWallet, account: posterAccount } = walletFromKey(poster.key);
    await mined(
      await posterWallet.writeContract({
        address: deployments.usdc.address,
        abi: TestUSDCAbi,
        functionName: "approve",
        args: [escrow, 2n ** 256n - 1n],
        account: posterAccount,
        chain,
      }),
    );
    const now = await chainTime();
    const deadline = BigInt(Math.floor(Date.parse(run.deadline) / 1000));
    const authorization = await signFundingAuthorization(poster.key, run);
    const attacker = walletFromKey(devAccounts.relayer);
    const before = {
      poster: await usdcBalance(poster.address),
      relayer: await usdcBalance(relayer),
      escrow: await usdcBalance(escrow),
    };
    const send = (functionName: string, args: unknown[]) =>
      attacker.wallet.writeContract({
        address: escrow,
        abi: RunEscrowAbi,
        functionName: functionName as never,
        args: args as never,
        account: attacker.account,
        chain,
      });

    // createRun names no poster: the caller is the poster, so the attacker can only pull its own allowance (none).
    // No escrow function takes a permit: the poster's permit could only set the allowance createRun never spends for
    // another caller.
    await assert.rejects(
      send("createRun", [95_000_000n, deadline, 0, 0n, "ipfs://drain"]),
      /ERC20InsufficientAllowance/,
    );
    // The authorization's nonce is the hash of the terms: any change, or another poster, breaks the signature.
    for (const args of [
      [poster.address, reward, deadline, 0, 0n, run.ipfsHash],
      [poster.address, reward, now + 120n, 2, 0n, run.ipfsHash],
      [poster.address, reward, deadline, 2, 0n, "ipfs://other-work"],
      [poster.address, reward, deadline, 2, 1n, run.ipfsHash],
      [relayer, reward, deadline, 2, 0n, run.ipfsHash],
    ]) {
      await assert.rejects(
        send("createRunWithAuthorization", [...args, BigInt(authorization.validBefore), authorization.signature]),
        /ERC3009InvalidSignature/,
      );
    }
    assert.deepEqual(
      {
        poster: await usdcBalance(poster.address),
        relayer: await usdcBalance(relayer),
        escrow: await usdcBalance(escrow),
      },
      before,
      "not one base unit moved",
    );

    // The run the poster did sign is funded through the API, exactly once, for exactly reward + fee.
    const funded = await api("POST", `/api/runs/${run.bountyId}/fund`, {
      body: { ...(await signedAction(poster.key, "fund-run", "run", run.bountyId)), authorization },
    });
    assert.equal(funded.status, 200, JSON.stringify(funded.body));
    assert.equal(await usdcBalance(poster.address), before.poster - reward - fee);
    assert.equal(await usdcBalance(escrow), before.escrow + reward + fee);
    assert.equal(await usdcBalance(relayer), before.relayer);
    await assert.rejects(
      send("createRunWithAuthorization", [
        poster.address,
        reward,
        deadline,
        2,
        0n,
        run.ipfsHash,
        BigInt(authorization.validBefore),
        authorization.signature,
      ]),
      /ERC3009UsedAuthorization/,
    );
    assert.equal(await usdcBalance(poster.address), before.poster - reward - fee, "the authorization funds one run");
    const cancelled = await step(poster.key, run.bountyId, "cancel", "cancel-run");
    assert.equal(cancelled.status, 200, JSON.stringify(cancelled.body));
  });
});

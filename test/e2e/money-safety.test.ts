// Money safety through the whole stack (issue 12): the chain's trust state is what the API reports and enforces,
// runs waiting on a revision time out, stakes stay locked under held runs, the fee rounds up and accrues until a
// sweep, reputation counts only runs of real value between distinct parties, and moderation slashes are bounded.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import type { Abi, Hex } from "viem";
import { depositDirect, faucet, stakedAgent, walletFromKey } from "../support/agents.ts";
import {
  adminHeaders,
  chainTime,
  claim,
  createDraft,
  escrowAddress,
  escrowLedger,
  feesAccrued,
  fundWithPermit,
  newPoster,
  openRun,
  step,
  usdcBalance,
} from "../support/runs.ts";
import { api, db, deployments, increaseTime, publicClient, waitUntil } from "../support/stack.ts";

after(() => db.end());

const DAY = 24 * 3600;
const vault = deployments.contracts.StakeVault.address;

function ok(res: { status: number; body: any }, status = 200) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

function fails(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
}

/** Sends `functionName` on a contract from `key`'s own wallet (it needs ETH); resolves to the receipt. */
async function sendDirect(key: Hex, address: Hex, abi: Abi, functionName: string, args: unknown[]) {
  const { account, wallet } = walletFromKey(key);
  const hash = await wallet.writeContract({ address, abi, functionName, args, account, chain: wallet.chain });
  return publicClient.waitForTransactionReceipt({ hash });
}

const trustOf = (agentId: number) =>
  publicClient.readContract({ address: vault, abi: StakeVaultAbi, functionName: "trustOf", args: [BigInt(agentId)] });

async function agentStatus(agentId: number): Promise<string> {
  return ok(await api("GET", `/api/agents/${agentId}`)).status;
}

async function runStats(agentId: number) {
  const r = await db.query<{ completions: number; total_claimed: number }>(
    "select completions, total_claimed from chain.agent_run_stats where agent_id = $1",
    [agentId],
  );
  return r.rows[0] ?? { completions: 0, total_claimed: 0 };
}

async function claimedAndSubmitted(agent: Awaited<ReturnType<typeof stakedAgent>>, id: number) {
  ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
  ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: `work for ${id}` }));
}

describe("money safety: trust state from the chain", () => {
  it("a timed-out agent is FROZEN on chain: the API says so, and a direct on-chain claim reverts too", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    await faucet(agent.owner.address, 0n, 10n ** 17n);
    const run = await openRun(poster, { deadlineIn: 30 * DAY });
    ok(await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId));
    await increaseTime(7 * DAY + 60);
    const timedOut = ok(await step(poster.key, run.bountyId, "timeout-slash", "timeout-slash"));
    assert.equal(timedOut.run.state, "TIMED_OUT");
    assert.deepEqual(await trustOf(agent.agentId), [1, 1n], "Frozen, one strike, on chain");
    assert.equal(await agentStatus(agent.agentId), "FROZEN");
    const row = await db.query("select trust_state, strikes from chain.stake where agent_id = $1", [agent.agentId]);
    assert.deepEqual(row.rows[0], { trust_state: "Frozen", strikes: 1 });

    // The API refuses the claim; the owner going around the API is refused by the contracts.
    const next = await openRun(poster, { deadlineIn: 30 * DAY });
    fails(await claim(agent.owner.key, agent.owner.address, next.bountyId, agent.agentId), 403, "AGENT_FROZEN");
    await assert.rejects(
      sendDirect(agent.owner.key, escrowAddress, RunEscrowAbi, "claim", [
        BigInt(next.onchainRunId!),
        BigInt(agent.agentId),
      ]),
      /StakeVaultAgentFrozen/,
    );

    // Staking again (the API records deposits of at least 20 USDC) brings the active stake back over the minimum.
    await faucet(agent.walletAddress, 20_000_000n);
    const tx = await depositDirect(agent.agentKey, agent.agentId, 20_000_000n);
    const restaked = ok(
      await api("POST", `/api/agents/${agent.agentId}/stake`, {
        body: { amount: "20000000", txHash: tx, walletAddress: agent.walletAddress },
      }),
    );
    assert.equal(restaked.status, "PROVISIONAL");
    assert.deepEqual(await trustOf(agent.agentId), [0, 1n]);
    ok(await claim(agent.owner.key, agent.owner.address, next.bountyId, agent.agentId));
  });

  it("the stake under a held run is locked on the deployed vault (withdrawal below the minimum reverts)", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent(30_000_000n);
    await faucet(agent.owner.address, 0n, 10n ** 17n);
    const run = await openRun(poster);
    ok(await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId));
    await assert.rejects(
      sendDirect(agent.owner.key, vault, StakeVaultAbi, "requestWithdrawal", [BigInt(agent.agentId), 30_000_000n]),
      /StakeVaultStakeLocked/,
    );
    // What is above the minimum may go.
    await sendDirect(agent.owner.key, vault, StakeVaultAbi, "requestWithdrawal", [BigInt(agent.agentId), 10_000_000n]);
    ok(await step(agent.owner.key, run.bountyId, "submit", "submit-run", { deliverable: "done" }));
    ok(await step(poster.key, run.bountyId, "approve", "approve-run"));
    const locks = await publicClient.readContract({
      address: vault,
      abi: StakeVaultAbi,
      functionName: "locksOf",
      args: [BigInt(agent.agentId)],
    });
    assert.equal(locks, 0n, "the completed run released the lock");
  });
});

describe("money safety: a run waiting on a revision times out", () => {
  it("REVISION_REQUESTED -> TIMED_OUT 7 days after the request: refund + slash, failure indexed", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const run = await openRun(poster, { maxRevisions: 2, deadlineIn: 30 * DAY });
    const id = run.bountyId;
    await claimedAndSubmitted(agent, id);
    const revised = ok(await step(poster.key, id, "request-revision", "request-revision", { feedback: "redo" }));
    assert.equal(revised.run.state, "REVISION_REQUESTED");
    assert.match(revised.message, /does not resubmit in time/);
    fails(await step(poster.key, id, "timeout-slash", "timeout-slash"), 409, "TIMEOUT_NOT_REACHED");
    await increaseTime(7 * DAY + 60);
    const before = await usdcBalance(poster.address);
    const timedOut = ok(await step(poster.key, id, "timeout-slash", "timeout-slash"));
    assert.equal(timedOut.run.state, "TIMED_OUT");
    // 10 USDC reward + 0.5 fee back, plus half of the 20 USDC stake.
    assert.equal(await usdcBalance(poster.address), before + 10_500_000n + 10_000_000n);
    const indexed = await db.query(
      "select state, failure_kind, revision_requested_at is not null requested from chain.run where id = $1",
      [run.onchainRunId],
    );
    assert.deepEqual(indexed.rows[0], { state: "TimedOut", failure_kind: "TimedOut", requested: true });
    assert.equal(await agentStatus(agent.agentId), "FROZEN");
  });
});

describe("money safety: the fee rounds up and accrues until a sweep", () => {
  it("a 19-unit run pays a 1-unit fee; anyone sweeps every accrued fee to the treasury in one transfer", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const draft = ok(await createDraft(poster.key, poster.address, { reward: 19n }), 201).run;
    assert.equal(draft.fee, "1");
    const run = ok(await fundWithPermit(poster.key, draft)).run;
    const before = await feesAccrued();
    await claimedAndSubmitted(agent, run.bountyId);
    ok(await step(poster.key, run.bountyId, "approve", "approve-run"));
    assert.equal(await feesAccrued(), before + 1n);

    const treasury = deployments.treasury as Hex;
    const sweeper = await newPoster(0n);
    await faucet(sweeper.address, 0n, 10n ** 17n);
    const accrued = await feesAccrued();
    const treasuryBefore = await usdcBalance(treasury);
    const receipt = await sendDirect(sweeper.key, escrowAddress, RunEscrowAbi, "sweepFees", []);
    assert.equal(await usdcBalance(treasury), treasuryBefore + accrued);
    assert.equal(await feesAccrued(), 0n);
    const swept = await waitUntil("indexed fee sweep", async () => {
      const r = await db.query("select amount::text from chain.fee_sweep where tx_hash = $1", [
        receipt.transactionHash,
      ]);
      return r.rows[0];
    });
    assert.equal(swept.amount, accrued.toString());
    const ledger = await escrowLedger();
    assert.equal(ledger.balance, ledger.owed);
  });
});

describe("money safety: reputation counts runs of real value between distinct parties", () => {
  it("one counted run a day per poster and agent; runs under 1 USDC count nothing", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const base = await runStats(agent.agentId);
    const complete = async (by: typeof poster, reward: bigint) => {
      const run = await openRun(by, { reward, deadlineIn: 30 * DAY });
      await claimedAndSubmitted(agent, run.bountyId);
      ok(await step(by.key, run.bountyId, "approve", "approve-run"));
    };
    await complete(poster, 1_000_000n);
    assert.deepEqual(await runStats(agent.agentId), {
      completions: base.completions + 1,
      total_claimed: base.total_claimed + 1,
    });
    // The same pair again the same day, and a micro-run from someone else: paid, but no reputation.
    await complete(poster, 5_000_000n);
    await complete(await newPoster(), 999_999n);
    assert.deepEqual(await runStats(agent.agentId), {
      completions: base.completions + 1,
      total_claimed: base.total_claimed + 1,
    });
    const reputation = ok(await api("GET", `/api/agents/${agent.agentId}`)).reputation;
    assert.equal(reputation.completions, base.completions + 1);
    // A day later the same poster counts again.
    await increaseTime(DAY + 60);
    await complete(poster, 1_000_000n);
    assert.deepEqual(await runStats(agent.agentId), {
      completions: base.completions + 2,
      total_claimed: base.total_claimed + 2,
    });
  });
});

describe("money safety: moderation slashes are bounded on chain", () => {
  it("the 11th moderation slash of a day is refused (429), the next day is open again", async () => {
    // A fresh window: moderation slashes of earlier test files are more than a day of chain time ago.
    await increaseTime(DAY + 60);
    const agent = await stakedAgent(100_000_000n);
    const slash = (reason: string) =>
      api("POST", `/api/agents/${agent.agentId}/slash`, { headers: adminHeaders(), body: { reason, percentage: 1 } });
    for (let i = 1; i <= 10; i++) {
      const res = ok(await slash(`review ${i}`));
      assert.equal(res.status, i < 3 ? "FROZEN" : "BANNED", `after slash ${i}`);
    }
    const stakeBefore = await publicClient.readContract({
      address: vault,
      abi: StakeVaultAbi,
      functionName: "stakeOf",
      args: [BigInt(agent.agentId)],
    });
    fails(await slash("one too many"), 429, "SLASH_RATE_LIMITED");
    assert.equal(
      await publicClient.readContract({
        address: vault,
        abi: StakeVaultAbi,
        functionName: "stakeOf",
        args: [BigInt(agent.agentId)],
      }),
      stakeBefore,
      "nothing slashed",
    );
    await increaseTime(DAY + 60);
    ok(await slash("next day"));
    // Leave later test files a fresh window too.
    await increaseTime(DAY + 60);
    assert.ok((await chainTime()) > 0n);
  });
});

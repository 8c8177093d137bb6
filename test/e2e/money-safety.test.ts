// Money safety through the whole stack (issue 12): the chain's trust state is what the API reports and enforces,
// runs waiting on a revision time out, stakes stay locked under held runs, the fee rounds up and accrues until a
// sweep, reputation counts only runs of real value between distinct parties, moderation slashes are bounded, and
// the relayer's key alone cannot take run money (consents, the arbiter).
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import {
  AgentIdentityAbi,
  LocalUSDCAbi,
  RunEscrowAbi,
  StakeVaultAbi,
  TestUSDCAbi,
} from "@agenthub/common/generated/abis";
import { RelayerCallError, RelayerClient } from "@agenthub/relayer/client";
import { AgentHub } from "@agenthub/sdk";
import { runConsentTypedData } from "@agenthub/sdk/protocol";
import { type Abi, BaseError, ContractFunctionRevertedError, getAddress, type Hex, parseEventLogs } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { depositDirect, faucet, signedAction, stakedAgent, walletFromKey } from "../support/agents.ts";
import {
  adminHeaders,
  chainTime,
  claim,
  createDraft,
  escrowAddress,
  escrowLedger,
  feesAccrued,
  fundWithAuthorization,
  newPoster,
  openRun,
  rewardsOf,
  rewardsPaidOut,
  signConsent,
  step,
  usdcBalance,
} from "../support/runs.ts";
import {
  api,
  chain,
  db,
  deployments,
  freshIp,
  increaseTime,
  newWallet,
  publicClient,
  stack,
  waitUntil,
} from "../support/stack.ts";

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
  it("a 10,001-unit run pays a 501-unit fee (5% rounded up); anyone sweeps every accrued fee to the treasury in one transfer", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    // 10,001 base units: just above the escrow's minimum reward (0.01 USDC), 5% of it is 500.05.
    const draft = ok(await createDraft(poster.key, poster.address, { reward: 10_001n }), 201).run;
    assert.equal(draft.fee, "501");
    const run = ok(await fundWithAuthorization(poster.key, draft)).run;
    const before = await feesAccrued();
    await claimedAndSubmitted(agent, run.bountyId);
    ok(await step(poster.key, run.bountyId, "approve", "approve-run"));
    assert.equal(await feesAccrued(), before + 501n);

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

describe("money safety: self-dealing directly on chain earns no reputation", () => {
  /** `posterKey` posts a 2 USDC run with its own createRun; the agent's owner claims, submits; the poster approves. */
  async function directRun(posterKey: Hex, agent: Awaited<ReturnType<typeof stakedAgent>>) {
    const poster = walletFromKey(posterKey).account.address;
    const reward = 2_000_000n;
    const rate = await publicClient.readContract({ address: escrowAddress, abi: RunEscrowAbi, functionName: "feeBps" });
    const fee = (reward * rate + 9_999n) / 10_000n;
    await sendDirect(posterKey, deployments.usdc.address, TestUSDCAbi, "approve", [escrowAddress, reward + fee]);
    const deadline = (await chainTime()) + BigInt(30 * DAY);
    const created = await sendDirect(posterKey, escrowAddress, RunEscrowAbi, "createRun", [
      reward,
      deadline,
      0,
      0n,
      `ipfs://self-dealing-${poster}`,
    ]);
    const [log] = parseEventLogs({ abi: RunEscrowAbi, logs: created.logs, eventName: "RunCreated" });
    const runId = log!.args.runId;
    await sendDirect(agent.owner.key, escrowAddress, RunEscrowAbi, "claim", [runId, BigInt(agent.agentId)]);
    await sendDirect(agent.owner.key, escrowAddress, RunEscrowAbi, "submit", [runId, `0x${"5e".repeat(32)}`]);
    const approved = await sendDirect(posterKey, escrowAddress, RunEscrowAbi, "approve", [runId]);
    assert.equal(approved.status, "success");
    return waitUntil(`run ${runId} indexed as completed`, async () => {
      const r = await db.query<{ reputation_eligible: boolean }>(
        "select reputation_eligible from chain.run where id = $1 and state = 'Completed'",
        [runId.toString()],
      );
      return r.rows[0];
    });
  }

  it("a run posted by the agent's own owner or wallet and claimed on chain adds nothing; a stranger's run counts", async () => {
    const agent = await stakedAgent();
    const stranger = newWallet();
    for (const address of [agent.owner.address, agent.walletAddress, stranger.address]) {
      await faucet(address, 10_000_000n, 10n ** 17n);
    }
    const base = await runStats(agent.agentId);
    for (const key of [agent.owner.key, agent.agentKey]) {
      const run = await directRun(key, agent);
      assert.equal(run.reputation_eligible, false, "the poster is the agent's own owner or wallet");
    }
    assert.deepEqual(await runStats(agent.agentId), base, "paid, but no reputation");
    // The same path from an unrelated poster does count: the rule, not the path, made the difference.
    const counted = await directRun(stranger.key, agent);
    assert.equal(counted.reputation_eligible, true);
    assert.deepEqual(await runStats(agent.agentId), {
      completions: base.completions + 1,
      total_claimed: base.total_claimed + 1,
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

/** The custom error a direct transaction reverts with (simulated first by viem). */
async function revertName(tx: Promise<unknown>): Promise<string | undefined> {
  try {
    await tx;
    return undefined;
  } catch (error) {
    const revert = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    return revert instanceof ContractFunctionRevertedError ? revert.data?.errorName : `unexpected: ${error}`;
  }
}

describe("money safety: the relayer's key alone takes no run money", () => {
  const relayerKey = stack.env.RELAYER_PRIVATE_KEY as Hex;
  const attacker = walletFromKey(relayerKey);
  const identity = deployments.contracts.AgentIdentity.address;
  const usdc = deployments.usdc.address;

  it("claim + approve, cancel and resolve by the relayer's key (direct and through the relayer) all fail; the arbiter resolves", async () => {
    const poster = await newPoster();
    const reward = 40_000_000n;
    const victimRun = await openRun(poster, { reward });
    const spare = await openRun(poster, { reward });
    const onchainId = BigInt(victimRun.onchainRunId!);
    const spareId = BigInt(spare.onchainRunId!);
    const fee = BigInt(victimRun.fee);

    // The attacker mints itself an agent (it holds the identity's RELAYER_ROLE) and stakes it like anyone.
    await faucet(attacker.address, 20_000_000n);
    const minted = await sendDirect(relayerKey, identity, AgentIdentityAbi as Abi, "mint", [
      attacker.address,
      "ipfs://bafkreiattackeragent",
    ]);
    assert.equal(minted.status, "success");
    const agentId = await publicClient.readContract({
      address: identity,
      abi: AgentIdentityAbi,
      functionName: "totalAgents",
    });
    await sendDirect(relayerKey, usdc, TestUSDCAbi as Abi, "approve", [vault, 20_000_000n]);
    await sendDirect(relayerKey, vault, StakeVaultAbi as Abi, "deposit", [agentId, 20_000_000n]);

    const before = {
      poster: await usdcBalance(poster.address),
      attacker: await usdcBalance(attacker.address),
      escrow: await usdcBalance(escrowAddress),
    };
    const write = (functionName: string, args: unknown[]) =>
      attacker.wallet.writeContract({
        address: escrowAddress,
        abi: RunEscrowAbi as Abi,
        functionName,
        args,
        account: attacker.account,
        chain: attacker.wallet.chain,
      });

    // Claiming and submitting with its own agent is what any agent may do...
    assert.equal(
      (await sendDirect(relayerKey, escrowAddress, RunEscrowAbi as Abi, "claim", [onchainId, agentId])).status,
      "success",
    );
    await sendDirect(relayerKey, escrowAddress, RunEscrowAbi as Abi, "submit", [onchainId, `0x${"ab".repeat(32)}`]);
    // ...approving as the poster is not: directly, with its own consent, or a consent it forged.
    assert.equal(await revertName(write("approve", [onchainId])), "RunEscrowUnauthorized");
    const run = await publicClient.readContract({
      address: escrowAddress,
      abi: RunEscrowAbi,
      functionName: "getRun",
      args: [onchainId],
    });
    const forge = async (action: "approve" | "cancel", runId: bigint, signer: Hex) => {
      const deadline = (await chainTime()) + 3600n;
      const typed = runConsentTypedData({
        escrow: escrowAddress,
        chainId: chain.id,
        action,
        runId,
        agentId: action === "approve" ? run.agentId : 0n,
        deliverableHash: action === "approve" ? run.deliverableHash : undefined,
        nonce: runId << 64n,
        deadline,
      });
      return {
        signer: getAddress(signer),
        nonce: runId << 64n,
        deadline,
        signature: await attacker.account.signTypedData(typed),
      };
    };
    assert.equal(
      await revertName(write("approveBySig", [onchainId, await forge("approve", onchainId, attacker.address)])),
      "RunEscrowWrongSigner",
    );
    assert.equal(
      await revertName(write("approveBySig", [onchainId, await forge("approve", onchainId, poster.address)])),
      "RunEscrowInvalidConsent",
    );
    // Cancelling the open run (the refund only ever goes to the poster anyway) needs the poster too.
    assert.equal(await revertName(write("cancel", [spareId])), "RunEscrowUnauthorized");
    assert.equal(
      await revertName(write("cancelBySig", [spareId, await forge("cancel", spareId, poster.address)])),
      "RunEscrowInvalidConsent",
    );

    // The relayer service with its bearer token: `approve` and `resolve` are not relayed; a forged consent reverts.
    const relayer = new RelayerClient(stack.relayerUrl, stack.secrets.relayerToken);
    for (const [functionName, args] of [
      ["approve", [onchainId]],
      ["resolve", [onchainId, true]],
    ] as const) {
      await assert.rejects(relayer.call("RunEscrow", RunEscrowAbi, functionName, args as never), (e: unknown) => {
        assert.ok(e instanceof RelayerCallError && e.code === "NOT_ALLOWED", String(e));
        return true;
      });
    }
    const forged = await forge("approve", onchainId, poster.address);
    await assert.rejects(relayer.call("RunEscrow", RunEscrowAbi, "approveBySig", [onchainId, forged]), (e: unknown) => {
      assert.ok(e instanceof RelayerCallError && e.errorName === "RunEscrowInvalidConsent", String(e));
      return true;
    });

    // It disputes as its agent's owner, then cannot resolve for itself: ARBITER_ROLE is not the relayer's.
    await sendDirect(relayerKey, escrowAddress, RunEscrowAbi as Abi, "dispute", [onchainId]);
    assert.equal(await revertName(write("resolve", [onchainId, true])), "RunEscrowUnauthorized");
    const after1 = {
      poster: await usdcBalance(poster.address),
      attacker: await usdcBalance(attacker.address),
      escrow: await usdcBalance(escrowAddress),
    };
    assert.deepEqual(after1, before, "not one base unit moved");

    // The arbiter (the API's admin route, sent from the configured ARBITER_ROLE key) resolves for the poster: the
    // attacker's stake is slashed to the poster and the run reopens; the poster then cancels with its own consent.
    await waitUntil(
      "dispute indexed",
      async () => (await api("GET", `/api/runs/${victimRun.bountyId}`)).body.state === "DISPUTED",
    );
    const resolved = ok(
      await api("POST", `/api/runs/${victimRun.bountyId}/resolve`, {
        body: { outcome: "poster" },
        headers: adminHeaders(),
      }),
    );
    assert.equal(resolved.run.state, "OPEN");
    const tx = await publicClient.getTransaction({ hash: resolved.txHash });
    assert.notEqual(getAddress(tx.from), getAddress(attacker.address), "not sent by the relayer");
    const slashed = 10_000_000n; // 50% of the attacker's 20 USDC stake
    ok(await step(poster.key, victimRun.bountyId, "cancel", "cancel-run"));
    ok(await step(poster.key, spare.bountyId, "cancel", "cancel-run"));
    assert.equal(await usdcBalance(poster.address), before.poster + slashed + 2n * (reward + fee));
    assert.equal(await usdcBalance(attacker.address), before.attacker);
    assert.equal(await usdcBalance(escrowAddress), before.escrow - 2n * (reward + fee));
    const ledger = await waitUntil("escrow ledger", async () => {
      const l = await escrowLedger();
      return l.held === l.balance ? l : undefined;
    });
    assert.equal(ledger.owed, ledger.balance);
  });

  it("the API refuses consents that are not the party's, expired, for another chain or run, or replayed", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const run = await openRun(poster, { reward: 7_000_000n, maxRevisions: 2 });
    const other = await openRun(poster, { reward: 7_000_000n });
    const id = run.bountyId;
    const stranger = await newPoster(0n);
    const before = await usdcBalance(poster.address);

    // Not the poster's: a stranger's consent with the poster's request.
    fails(
      await step(poster.key, other.bountyId, "cancel", "cancel-run", {}, { consentKey: stranger.key }),
      403,
      "CONSENT_SIGNER_MISMATCH",
    );
    // Signed for another run, another chain, or already expired.
    const forOther = await signConsent(poster.key, id, "cancel");
    fails(
      await step(poster.key, other.bountyId, "cancel", "cancel-run", { consent: forOther }),
      403,
      "INVALID_CONSENT",
    );
    const sign = async (chainId: number, deadline: bigint) => {
      const onchainId = BigInt(other.onchainRunId!);
      const typed = runConsentTypedData({
        escrow: escrowAddress,
        chainId,
        action: "cancel",
        runId: onchainId,
        nonce: onchainId << 64n,
        deadline,
      });
      const signature = await walletFromKey(poster.key).account.signTypedData(typed);
      return { nonce: (onchainId << 64n).toString(), deadline: Number(deadline), signature };
    };
    const later = (await chainTime()) + 3600n;
    fails(
      await step(poster.key, other.bountyId, "cancel", "cancel-run", { consent: await sign(8453, later) }),
      403,
      "INVALID_CONSENT",
    );
    const past = (await chainTime()) - 1n;
    fails(
      await step(poster.key, other.bountyId, "cancel", "cancel-run", { consent: await sign(chain.id, past) }),
      400,
      "CONSENT_EXPIRED",
    );
    assert.equal(await usdcBalance(poster.address), before, "nothing refunded yet");

    // A revision consent is used once; after the agent resubmits the same work, replaying it is refused.
    ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
    const hash = `0x${"cd".repeat(32)}` as Hex;
    ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverableHash: hash }));
    const revision = await signConsent(poster.key, id, "requestRevision");
    ok(await step(poster.key, id, "request-revision", "request-revision", { feedback: "more", consent: revision }));
    ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverableHash: hash }));
    fails(
      await step(poster.key, id, "request-revision", "request-revision", { feedback: "again", consent: revision }),
      409,
      "CONSENT_NONCE_USED",
    );
    // The agent's side: the poster cannot sign the agent's submit, and the consent endpoint names who may.
    const parties = ok(
      await api("GET", `/api/runs/${id}/consent?action=submit&signer=${agent.owner.address}&deliverableHash=${hash}`),
    );
    assert.deepEqual(parties.parties, [getAddress(agent.owner.address)]);
    assert.equal(parties.typedData.domain.verifyingContract, escrowAddress);
    ok(await step(poster.key, id, "approve", "approve-run"));
    ok(await step(poster.key, other.bountyId, "cancel", "cancel-run"));
    assert.equal(await usdcBalance(poster.address), before + BigInt(other.reward) + BigInt(other.fee));
    assert.equal(await usdcBalance(agent.owner.address), 7_000_000n);
  });
});

describe("money safety: accrued fees are swept by a job once they reach the threshold", () => {
  it("below FEE_SWEEP_THRESHOLD the job sends nothing; past it, one sweep pays the treasury every accrued unit", async () => {
    const threshold = BigInt(stack.env.FEE_SWEEP_THRESHOLD!);
    const treasury = deployments.treasury as Hex;
    const lastSweepJob = async () =>
      (
        await db.query<{ id: string; output: any }>(
          `select id::text, output from pgboss.job where name = 'fee-sweep' and state = 'completed'
            order by completed_on desc limit 1`,
        )
      ).rows[0];
    // Below the threshold: jobs keep completing without a transfer.
    const accruedBefore = await feesAccrued();
    assert.ok(accruedBefore < threshold, "earlier tests stay far below the threshold");
    const treasuryBefore = await usdcBalance(treasury);
    const seen = (await lastSweepJob())?.id;
    const quiet = await waitUntil("a fee-sweep job below the threshold", async () => {
      const job = await lastSweepJob();
      return job && job.id !== seen ? job : undefined;
    });
    assert.equal(quiet.output.skipped, "below-threshold");
    assert.equal(await usdcBalance(treasury), treasuryBefore);
    assert.equal(await feesAccrued(), accruedBefore);

    // One approved run whose fee crosses the threshold (at the fee rate in force, which governance may have changed).
    const bps = await publicClient.readContract({ address: escrowAddress, abi: RunEscrowAbi, functionName: "feeBps" });
    const reward = ((threshold - accruedBefore) * 10_000n) / bps + 1_000_000n;
    const poster = await newPoster(reward * 2n);
    const agent = await stakedAgent();
    const run = await openRun(poster, { reward });
    await claimedAndSubmitted(agent, run.bountyId);
    ok(await step(poster.key, run.bountyId, "approve", "approve-run"));
    const fee = BigInt(run.fee);
    assert.ok(accruedBefore + fee >= threshold);
    const sweep = await waitUntil("the fee sweep", async () => {
      const r = await db.query<{ amount: string; tx_hash: string }>(
        "select amount::text, tx_hash from chain.fee_sweep order by timestamp desc limit 1",
      );
      const row = r.rows[0];
      return row && BigInt(row.amount) === accruedBefore + fee ? row : undefined;
    });
    assert.equal(await usdcBalance(treasury), treasuryBefore + accruedBefore + fee, "every accrued unit, once");
    assert.equal(await feesAccrued(), 0n);
    const tx = await publicClient.getTransaction({ hash: sweep.tx_hash as Hex });
    assert.equal(getAddress(tx.from), getAddress(privateKeyToAccount(stack.env.RELAYER_PRIVATE_KEY as Hex).address));
    const ledger = await escrowLedger();
    assert.equal(ledger.balance, ledger.owed);
  });
});

describe("money safety: approved rewards reach the owners through the payout job", () => {
  it("an approval moves no USDC; the job pays each agent's owner to the base unit, a later owner if the token moved", async () => {
    const poster = await newPoster();
    const [a, b] = [await stakedAgent(), await stakedAgent()];
    const [runA, runB] = [await openRun(poster, { reward: 3_000_001n }), await openRun(poster, { reward: 4_000_000n })];
    await claimedAndSubmitted(a, runA.bountyId);
    await claimedAndSubmitted(b, runB.bountyId);
    const buyer = newWallet();
    // b's owner sends the token transfer itself (gas only).
    await faucet(b.owner.address, 1n, 10n ** 17n);
    const before = {
      a: await usdcBalance(a.owner.address),
      b: await usdcBalance(b.owner.address),
      buyer: await usdcBalance(buyer.address),
    };
    // Agent b changes hands right after its approval: its unpaid reward goes with the token.
    const approvedB = ok(await step(poster.key, runB.bountyId, "approve", "approve-run", {}, { skipPayoutWait: true }));
    const approvedAt = approvedB.txHash as Hex;
    const approval = await publicClient.getTransactionReceipt({ hash: approvedAt });
    const usdcLogs = approval.logs.filter((l) => getAddress(l.address) === getAddress(deployments.usdc.address));
    assert.equal(usdcLogs.length, 0, "the approval itself transfers nothing");
    const transfer = await sendDirect(
      b.owner.key,
      deployments.contracts.AgentIdentity.address,
      AgentIdentityAbi,
      "transferFrom",
      [b.owner.address, buyer.address, BigInt(b.agentId)],
    );
    assert.equal(transfer.status, "success");
    ok(await step(poster.key, runA.bountyId, "approve", "approve-run", {}, { skipPayoutWait: true }));
    await rewardsPaidOut(a.agentId);
    await rewardsPaidOut(b.agentId);
    assert.equal(await rewardsOf(a.agentId), 0n);
    assert.equal(await usdcBalance(a.owner.address), before.a + 3_000_001n, "a's owner, to the base unit");
    // b's reward was paid either before the transfer (to the old owner) or after it (to the buyer), never twice.
    const paidOld = (await usdcBalance(b.owner.address)) - before.b;
    const paidBuyer = (await usdcBalance(buyer.address)) - before.buyer;
    assert.equal(paidOld + paidBuyer, 4_000_000n, "b's reward once, to whoever owned the token when paid");
    const paidEvents = await publicClient.getContractEvents({
      address: escrowAddress,
      abi: RunEscrowAbi,
      eventName: "RewardsPaid",
      args: { agentId: BigInt(b.agentId) },
      fromBlock: approval.blockNumber,
    });
    assert.equal(paidEvents.length, 1);
    assert.equal(getAddress(paidEvents[0]!.args.to!), getAddress(paidOld > 0n ? b.owner.address : buyer.address));
    const ledger = await waitUntil("escrow ledger", async () => {
      const l = await escrowLedger();
      return l.held === l.balance ? l : undefined;
    });
    assert.equal(ledger.owed, ledger.balance);
  });
});

describe("money safety: credits of failed payments are withdrawn by the credited account", () => {
  it("a blacklisted poster's refund and a blacklisted owner's reward are credited, refused while blocked, then paid once", async () => {
    const usdc = deployments.usdc.address;
    // The local TestUSDC's blacklister is the deployer (Circle's USDC has one too).
    const blacklist = (fn: "blacklist" | "unBlacklist", who: Hex) =>
      sendDirect(devAccounts.deployer, usdc, LocalUSDCAbi as Abi, fn, [who]);
    const poster = await newPoster();
    const agent = await stakedAgent();
    const reward = 9_000_000n;
    const cancelled = await openRun(poster, { reward });
    const approved = await openRun(poster, { reward });
    const paid = reward + BigInt(cancelled.fee);
    await claimedAndSubmitted(agent, approved.bountyId);
    await blacklist("blacklist", poster.address);
    await blacklist("blacklist", agent.owner.address);
    const before = { poster: await usdcBalance(poster.address), owner: await usdcBalance(agent.owner.address) };

    // Both runs still end: the refund and the reward become credits.
    ok(await step(poster.key, cancelled.bountyId, "cancel", "cancel-run"));
    ok(await step(poster.key, approved.bountyId, "approve", "approve-run"));
    assert.deepEqual(ok(await api("GET", `/api/credits/${poster.address}`)).credits, {
      RunEscrow: paid.toString(),
      StakeVault: "0",
    });
    assert.equal(ok(await api("GET", `/api/credits/${agent.owner.address}`)).total, reward.toString());

    const withdraw = async (key: Hex, account: Hex) =>
      api("POST", "/api/credits/withdraw", {
        body: { account, ...(await signedAction(key, "withdraw-credit", "account", getAddress(account))) },
      });
    // Only the account itself asks; while the token refuses it, nothing moves.
    fails(await withdraw(agent.owner.key, poster.address), 403, "NOT_CREDITED_ACCOUNT");
    fails(await withdraw(poster.key, poster.address), 409, "ACCOUNT_BLOCKED");
    assert.equal(await usdcBalance(poster.address), before.poster);

    await blacklist("unBlacklist", poster.address);
    await blacklist("unBlacklist", agent.owner.address);
    const out = ok(await withdraw(poster.key, poster.address));
    assert.equal(out.total, "0");
    assert.deepEqual(
      out.withdrawn.map((w: any) => [w.contract, w.amount]),
      [["RunEscrow", paid.toString()]],
    );
    assert.equal(await usdcBalance(poster.address), before.poster + paid, "the refund, to the base unit");
    // The agent owner withdraws through the SDK.
    const hub = new AgentHub({ apiUrl: stack.apiUrl, headers: { "x-forwarded-for": freshIp() } });
    const paidOut = await hub.credits.withdraw(agent.owner.account);
    assert.deepEqual(
      paidOut.withdrawn.map((w) => [w.contract, w.amount]),
      [["RunEscrow", reward.toString()]],
    );
    assert.equal(await usdcBalance(agent.owner.address), before.owner + reward, "the reward, to the base unit");
    assert.equal((await hub.credits.get(agent.owner.address)).total, "0");
    fails(await withdraw(poster.key, poster.address), 409, "NO_CREDIT");
    const ledger = await waitUntil("escrow ledger", async () => {
      const l = await escrowLedger();
      return l.held === l.balance ? l : undefined;
    });
    assert.equal(ledger.owed, ledger.balance);
  });
});

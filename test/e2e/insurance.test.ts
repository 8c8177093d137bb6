// Insurance API end to end: gasless and self-paid coverage stakes, coverage checks at their boundaries, the
// two-phase withdrawal with its 14-day cooldown on chain time, a run's cover (agreed damages fixed at funding, carried by
// the agent's claim consent) and a poster's claim after a real failed run.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { InsurancePoolAbi, RunEscrowAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import type { Address, Hex } from "viem";
import {
  allowanceOf,
  approveUsdc,
  claimAgent,
  faucet,
  registerAgent,
  signedAction,
  signPermit,
  stakedAgent,
  usdcOf,
  walletFromKey,
} from "../support/agents.ts";
import {
  adminHeaders,
  chainTime,
  claim,
  createDraft,
  fundWithAuthorization,
  newPoster,
  openRun,
  signConsent,
  signFundingAuthorization,
  step,
  usdcBalance,
} from "../support/runs.ts";
import { api, db, deployments, increaseTime, newWallet, publicClient, waitUntil } from "../support/stack.ts";

after(() => db.end());

const pool = deployments.contracts.InsurancePool.address;
const DAY = 24 * 3600;
const COOLDOWN = 14 * DAY;

function ok(res: { status: number; body: any }, status = 200) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

function fails(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
  assert.equal(typeof res.body.error.message, "string");
  return res.body;
}

const poolTotal = () =>
  publicClient.readContract({ address: pool, abi: InsurancePoolAbi, functionName: "totalCoverage" });

const coverOnChain = (onchainRunId: string | bigint) =>
  publicClient.readContract({
    address: deployments.contracts.RunEscrow.address,
    abi: RunEscrowAbi,
    functionName: "coverOf",
    args: [BigInt(onchainRunId)],
  });

const coverageOnChain = (agentId: number) =>
  publicClient.readContract({
    address: pool,
    abi: InsurancePoolAbi,
    functionName: "coverageOf",
    args: [BigInt(agentId)],
  });

/** A registered, claimed agent whose wallet holds `usdc` and no ETH; the owner holds ETH only. */
async function insuredAgent(usdc = 100_000_000n) {
  const reg = await registerAgent();
  const claimed = await claimAgent(reg.agentId, reg.claimCode);
  await faucet(reg.walletAddress, usdc);
  return { ...reg, ...claimed };
}

let lastStakeBody: Record<string, unknown> | undefined;

async function gaslessStake(agent: { agentId: number; walletAddress: Address; agentKey: Hex }, amount: bigint) {
  const deadline = (await chainTime()) + 3600n;
  const signature = await signPermit(agent.agentKey, pool, amount, deadline);
  lastStakeBody = {
    agentTokenId: agent.agentId,
    amountUsdc: amount.toString(),
    walletAddress: agent.walletAddress,
    deadline: Number(deadline),
    signature,
  };
  return api("POST", "/api/insurance/stake", { body: lastStakeBody });
}

/** The wallet's own approve + InsurancePool.stake (it pays gas); returns the stake tx hash. */
async function stakeDirect(key: Hex, agentId: number, amount: bigint): Promise<Hex> {
  const { account, wallet } = walletFromKey(key);
  const approve = await wallet.writeContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "approve",
    args: [pool, amount],
    account,
    chain: wallet.chain,
  });
  await publicClient.waitForTransactionReceipt({ hash: approve });
  const hash = await wallet.writeContract({
    address: pool,
    abi: InsurancePoolAbi,
    functionName: "stake",
    args: [BigInt(agentId), amount],
    account,
    chain: wallet.chain,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash });
  assert.equal(receipt.status, "success");
  return hash;
}

async function withdraw(key: Hex, agentId: number, phase: "request" | "complete", amountUsdc?: bigint) {
  const action = phase === "request" ? "insurance-withdraw-request" : "insurance-withdraw";
  const signed = await signedAction(key, action, "agent", agentId);
  return api("POST", "/api/insurance/withdraw", {
    body: {
      agentTokenId: agentId,
      phase,
      ...(amountUsdc === undefined ? {} : { amountUsdc: amountUsdc.toString() }),
      ...signed,
    },
  });
}

const coverage = (agentId: number, required: bigint | string) =>
  api("GET", `/api/insurance/coverage/${agentId}?requiredAmount=${required}`);

describe("insurance: staking coverage", () => {
  it("stakes gaslessly with the wallet's USDC permit (the wallet holds no ETH); a permit counts once", async () => {
    const agent = await insuredAgent();
    assert.equal(await publicClient.getBalance({ address: agent.walletAddress }), 0n);
    const res = ok(await gaslessStake(agent, 25_000_000n));
    assert.equal(res.success, true);
    assert.equal(res.agentTokenId, agent.agentId);
    assert.equal(res.amountUsdc, "25000000");
    assert.equal(res.stakedBy, agent.walletAddress);
    assert.match(res.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(res.stake.coverage, "25000000");
    assert.equal(res.stake.availableCoverage, "25000000");
    assert.equal(res.stake.pendingWithdrawal, null);
    assert.equal(res.stake.withdrawalCooldownSeconds, COOLDOWN);
    assert.equal(await coverageOnChain(agent.agentId), 25_000_000n);
    assert.equal(await usdcBalance(agent.walletAddress), 75_000_000n);
    assert.equal(await publicClient.getBalance({ address: agent.walletAddress }), 0n, "the relayer paid the gas");

    // The same permit again: the relayer's idempotent replay gives the same transaction, already recorded.
    fails(await api("POST", "/api/insurance/stake", { body: lastStakeBody! }), 400, "TX_ALREADY_USED");
    assert.equal(await coverageOnChain(agent.agentId), 25_000_000n);
    const status = ok(await api("GET", `/api/insurance/stake/${agent.agentId}`));
    assert.deepEqual(status, res.stake);
  });

  it("records the wallet's own stake transaction once and checks it is a stake for this agent from this wallet", async () => {
    const agent = await insuredAgent();
    await faucet(agent.owner.address, 50_000_000n, 10n ** 17n);
    const hash = await stakeDirect(agent.owner.key, agent.agentId, 30_000_000n);
    const body = {
      agentTokenId: agent.agentId,
      amountUsdc: "30000000",
      walletAddress: agent.owner.address,
      txHash: hash,
    };
    // Stated amount larger than deposited, another wallet, another agent: refused before anything is recorded.
    fails(
      await api("POST", "/api/insurance/stake", { body: { ...body, amountUsdc: "30000001" } }),
      400,
      "STAKE_AMOUNT_MISMATCH",
    );
    fails(
      await api("POST", "/api/insurance/stake", { body: { ...body, walletAddress: agent.walletAddress } }),
      403,
      "WALLET_MISMATCH",
    );
    const other = await insuredAgent(0n);
    fails(
      await api("POST", "/api/insurance/stake", {
        body: { ...body, agentTokenId: other.agentId, walletAddress: other.owner.address },
      }),
      400,
      "NOT_A_STAKE",
    );
    const res = ok(await api("POST", "/api/insurance/stake", { body }));
    assert.equal(res.txHash, hash);
    assert.equal(res.stake.coverage, "30000000");
    fails(await api("POST", "/api/insurance/stake", { body }), 400, "TX_ALREADY_USED");
    fails(
      await api("POST", "/api/insurance/stake", { body: { ...body, txHash: `0x${"ab".repeat(32)}` } }),
      400,
      "TX_NOT_FOUND",
    );

    const listed = ok(await api("GET", `/api/insurance/agent/${agent.agentId}/stakes`));
    assert.equal(listed.agentId, agent.agentId);
    assert.equal(listed.total, 1);
    assert.equal(listed.stakes[0].txHash, hash);
    assert.equal(listed.stakes[0].amountUsdc, "30000000");
    assert.equal(listed.stakes[0].from.toLowerCase(), agent.owner.address.toLowerCase());
    assert.ok(!Number.isNaN(Date.parse(listed.stakes[0].stakedAt)));
    assert.equal(listed.stake.coverage, "30000000");
  });

  it("refuses bad stake requests with the right codes", async () => {
    const agent = await insuredAgent();
    const base = { agentTokenId: agent.agentId, amountUsdc: "1000000", walletAddress: agent.walletAddress };
    fails(
      await api("POST", "/api/insurance/stake", {
        body: { ...base, agentTokenId: 999_999, txHash: `0x${"11".repeat(32)}` },
      }),
      404,
      "AGENT_NOT_FOUND",
    );
    fails(
      await api("POST", "/api/insurance/stake", { body: { ...base, amountUsdc: "0", txHash: `0x${"11".repeat(32)}` } }),
      400,
      "INVALID_AMOUNT",
    );
    fails(
      await api("POST", "/api/insurance/stake", {
        body: { ...base, amountUsdc: "1.5", txHash: `0x${"11".repeat(32)}` },
      }),
      400,
      "VALIDATION_ERROR",
    );
    fails(
      await api("POST", "/api/insurance/stake", {
        body: { ...base, walletAddress: "0x1234", txHash: `0x${"11".repeat(32)}` },
      }),
      400,
      "VALIDATION_ERROR",
    );
    fails(await api("POST", "/api/insurance/stake", { body: base }), 400, "VALIDATION_ERROR");
    fails(
      await api("POST", "/api/insurance/stake", {
        body: { ...base, txHash: `0x${"11".repeat(32)}`, signature: `0x${"22".repeat(65)}`, deadline: 1 },
      }),
      400,
      "VALIDATION_ERROR",
    );
    fails(
      await api("POST", "/api/insurance/stake", { body: { ...base, signature: `0x${"22".repeat(65)}` } }),
      400,
      "VALIDATION_ERROR",
    );
    fails(
      await api("POST", "/api/insurance/stake", {
        rawBody: "{not json",
        headers: { "content-type": "application/json" },
      }),
      400,
      "VALIDATION_ERROR",
    );
    // A permit signed for less than the stated amount: the pool's transfer fails on the allowance.
    const deadline = (await chainTime()) + 3600n;
    const small = await signPermit(agent.agentKey, pool, 1n, deadline);
    fails(
      await api("POST", "/api/insurance/stake", { body: { ...base, deadline: Number(deadline), signature: small } }),
      400,
      "INVALID_PERMIT",
    );
    // Neither the agent's wallet nor its owner.
    const stranger = newWallet();
    fails(
      await api("POST", "/api/insurance/stake", {
        body: { ...base, walletAddress: stranger.address, txHash: `0x${"11".repeat(32)}` },
      }),
      403,
      "WALLET_MISMATCH",
    );
    fails(await api("GET", "/api/insurance/stake/999999"), 404, "AGENT_NOT_FOUND");
    fails(await api("GET", "/api/insurance/stake/abc"), 400, "VALIDATION_ERROR");
    fails(await api("GET", "/api/insurance/agent/999999/stakes"), 404, "AGENT_NOT_FOUND");
    assert.equal(await coverageOnChain(agent.agentId), 0n);
  });
});

describe("insurance: permits are verified before relaying", () => {
  it("a signature that is not the wallet's permit cannot pull the wallet's existing allowance into coverage", async () => {
    const agent = await insuredAgent(60_000_000n);
    await faucet(agent.walletAddress, 0n, 10n ** 16n);
    await approveUsdc(agent.agentKey, pool, 60_000_000n);
    const attacker = newWallet();
    const deadline = (await chainTime()) + 3600n;
    const body = {
      agentTokenId: agent.agentId,
      amountUsdc: "60000000",
      walletAddress: agent.walletAddress,
      deadline: Number(deadline),
    };
    for (const signature of [
      await signPermit(attacker.key, pool, 60_000_000n, deadline),
      `0x${"11".repeat(32)}${"22".repeat(32)}1c`,
      await signPermit(agent.agentKey, deployments.contracts.StakeVault.address, 60_000_000n, deadline),
    ]) {
      fails(await api("POST", "/api/insurance/stake", { body: { ...body, signature } }), 400, "INVALID_PERMIT");
    }
    assert.equal(await coverageOnChain(agent.agentId), 0n);
    assert.equal(await usdcOf(agent.walletAddress), 60_000_000n);
    assert.equal(await allowanceOf(agent.walletAddress, pool), 60_000_000n);
    // The wallet's own permit still works, to the base unit.
    const signature = await signPermit(agent.agentKey, pool, 60_000_000n, deadline);
    ok(await api("POST", "/api/insurance/stake", { body: { ...body, signature } }));
    assert.equal(await coverageOnChain(agent.agentId), 60_000_000n);
    assert.equal(await usdcOf(agent.walletAddress), 0n);
  });
});

describe("insurance: coverage and withdrawal", () => {
  it("answers hasCoverage exactly at the boundary, excluding coverage pending withdrawal", async () => {
    const agent = await insuredAgent();
    ok(await gaslessStake(agent, 40_000_000n));
    let res = ok(await coverage(agent.agentId, 40_000_000n));
    assert.deepEqual(res, {
      agentTokenId: agent.agentId,
      requiredAmount: "40000000",
      hasCoverage: true,
      availableCoverage: "40000000",
    });
    assert.equal(ok(await coverage(agent.agentId, 40_000_001n)).hasCoverage, false);
    assert.equal(ok(await coverage(agent.agentId, 0n)).hasCoverage, true);

    ok(await withdraw(agent.owner.key, agent.agentId, "request", 15_000_000n));
    res = ok(await coverage(agent.agentId, 25_000_000n));
    assert.equal(res.hasCoverage, true);
    assert.equal(res.availableCoverage, "25000000");
    assert.equal(ok(await coverage(agent.agentId, 25_000_001n)).hasCoverage, false);

    fails(await api("GET", `/api/insurance/coverage/${agent.agentId}`), 400, "VALIDATION_ERROR");
    fails(await coverage(agent.agentId, "-1"), 400, "VALIDATION_ERROR");
    fails(await coverage(agent.agentId, "1e6"), 400, "VALIDATION_ERROR");
    fails(await coverage(999_999, 1n), 404, "AGENT_NOT_FOUND");
  });

  it("withdraws in two signed phases: request, then complete only after the 14-day cooldown (chain time)", async () => {
    const agent = await insuredAgent();
    ok(await gaslessStake(agent, 50_000_000n));
    // Signed by a stranger, or for the other phase's action: refused.
    const stranger = newWallet();
    fails(await withdraw(stranger.key, agent.agentId, "request", 1n), 403, "NOT_AGENT_OWNER");
    const wrongAction = await signedAction(agent.owner.key, "insurance-withdraw", "agent", agent.agentId);
    fails(
      await api("POST", "/api/insurance/withdraw", {
        body: { agentTokenId: agent.agentId, phase: "request", amountUsdc: "1", ...wrongAction },
      }),
      401,
      "INVALID_SIGNATURE",
    );
    fails(await withdraw(agent.owner.key, agent.agentId, "request"), 400, "VALIDATION_ERROR");
    fails(await withdraw(agent.owner.key, agent.agentId, "request", 0n), 400, "INVALID_AMOUNT");
    fails(await withdraw(agent.owner.key, agent.agentId, "request", 50_000_001n), 409, "INSUFFICIENT_COVERAGE");
    fails(await withdraw(agent.owner.key, agent.agentId, "complete"), 409, "NO_PENDING_WITHDRAWAL");
    fails(await withdraw(agent.owner.key, 999_999, "complete"), 404, "AGENT_NOT_FOUND");

    // The agent's wallet may request too (it holds no ETH: relayed).
    const requested = ok(await withdraw(agent.agentKey, agent.agentId, "request", 20_000_000n));
    assert.equal(requested.phase, "requested");
    assert.equal(requested.amountUsdc, "20000000");
    assert.equal(requested.paidTo, null);
    const availableAt = Date.parse(requested.availableAt);
    const requestedAt = Number((await publicClient.getBlock()).timestamp) * 1000;
    assert.equal(availableAt - requestedAt, COOLDOWN * 1000);
    assert.deepEqual(requested.stake.pendingWithdrawal, { amount: "20000000", availableAt: requested.availableAt });
    assert.equal(requested.stake.availableCoverage, "30000000");
    fails(await withdraw(agent.owner.key, agent.agentId, "request", 1n), 409, "WITHDRAWAL_PENDING");

    fails(await withdraw(agent.owner.key, agent.agentId, "complete"), 409, "WITHDRAWAL_NOT_READY");
    await increaseTime(COOLDOWN - 120);
    fails(await withdraw(agent.owner.key, agent.agentId, "complete"), 409, "WITHDRAWAL_NOT_READY");
    await increaseTime(240);

    const ownerBefore = await usdcBalance(agent.owner.address);
    const done = ok(await withdraw(agent.owner.key, agent.agentId, "complete"));
    assert.equal(done.phase, "withdrawn");
    assert.equal(done.amountUsdc, "20000000");
    assert.equal(done.paidTo, agent.owner.address);
    assert.equal(done.availableAt, null);
    assert.equal(done.stake.coverage, "30000000");
    assert.equal(done.stake.pendingWithdrawal, null);
    assert.equal(await usdcBalance(agent.owner.address), ownerBefore + 20_000_000n);
    assert.equal(await coverageOnChain(agent.agentId), 30_000_000n);
    fails(await withdraw(agent.owner.key, agent.agentId, "complete"), 409, "NO_PENDING_WITHDRAWAL");

    // The indexed coverage row agrees with the chain.
    const row = await waitUntil("indexed coverage", async () => {
      const r = await db.query(
        "select amount::text, pending_withdrawal::text from chain.insurance_coverage where agent_id = $1",
        [agent.agentId],
      );
      return r.rows[0]?.amount === "30000000" ? r.rows[0] : undefined;
    });
    assert.equal(row.pending_withdrawal, "0");
  });
});

describe("insurance: a run's cover (agreed damages) is a term fixed at funding", () => {
  it("declared in the draft within the escrow's bound, fixed by the funding, carried by the claim consent; claims need that much coverage", async () => {
    const poster = await newPoster();
    // At most ten times the reward (RunEscrow.maxCoverBps): damages of 400 times a run's value are refused.
    fails(await createDraft(poster.key, poster.address, { requiredCoverage: 100_000_001n }), 400, "COVER_TOO_HIGH");
    const draft = ok(await createDraft(poster.key, poster.address, { requiredCoverage: 12_000_000n }), 201).run;
    assert.equal(draft.requiredCoverage, "12000000");
    assert.equal(draft.coverPending, true);
    // The funding authorization binds the cover like every other term: one signed for another cover is refused.
    const otherCover = await signFundingAuthorization(poster.key, draft, { terms: { cover: 1n } });
    const signedFund = await signedAction(poster.key, "fund-run", "run", draft.bountyId);
    fails(
      await api("POST", `/api/runs/${draft.bountyId}/fund`, { body: { ...signedFund, authorization: otherCover } }),
      400,
      "INVALID_AUTHORIZATION",
    );
    const funded = ok(await fundWithAuthorization(poster.key, draft)).run;
    const id = funded.bountyId;
    assert.equal(funded.requiredCoverage, "12000000");
    assert.equal(funded.coverPending, false);
    assert.equal(await coverOnChain(funded.onchainRunId), 12_000_000n, "fixed on chain by the funding itself");
    const indexed = await db.query("select required_coverage::text c from chain.run where id = $1", [
      funded.onchainRunId,
    ]);
    assert.equal(indexed.rows[0].c, "12000000");

    // What an agent signs to claim names the cover: a consent to a smaller one (what a poster raising it after the
    // agent looked would leave) is void.
    const insured = await stakedAgent();
    await faucet(insured.walletAddress, 12_000_000n);
    ok(await gaslessStake(insured, 12_000_000n));
    const served = ok(
      await api(
        "GET",
        `/api/runs/${id}/consent?action=claim&signer=${insured.owner.address}&agentId=${insured.agentId}`,
      ),
    );
    assert.equal(served.typedData.message.terms.cover, "12000000");
    assert.equal(served.typedData.message.terms.reward, funded.reward);
    const smaller = await signConsent(insured.owner.key, id, "claim", {
      agentId: insured.agentId,
      terms: { cover: 1_000_000n },
    });
    const signedClaim = await signedAction(insured.owner.key, "claim-run", "run", id);
    fails(
      await api("POST", `/api/runs/${id}/claim`, {
        body: { agentId: insured.agentId, walletAddress: insured.owner.address, ...signedClaim, consent: smaller },
      }),
      403,
      "INVALID_CONSENT",
    );

    // An agent with less coverage not pending withdrawal is refused with a clear reason; the insured one claims.
    const short = await stakedAgent();
    await faucet(short.walletAddress, 12_000_000n);
    ok(await gaslessStake(short, 12_000_000n));
    ok(await withdraw(short.owner.key, short.agentId, "request", 1n));
    const refused = ok(await api("GET", `/api/runs/${id}/claim-eligibility?agentId=${short.agentId}`));
    assert.deepEqual(refused.reasons, ["COVERAGE_REQUIRED"]);
    assert.equal(refused.agent.availableCoverage, "11999999");
    fails(await claim(short.owner.key, short.owner.address, id, short.agentId), 403, "COVERAGE_REQUIRED");
    const claimed = ok(await claim(insured.owner.key, insured.owner.address, id, insured.agentId));
    assert.equal(claimed.run.state, "CLAIMED");
    assert.equal(await coverOnChain(funded.onchainRunId), 12_000_000n);
  });

  it("a run without a declared cover is claimable by uninsured agents and stays without one", async () => {
    const poster = await newPoster();
    const run = await openRun(poster);
    assert.equal(run.requiredCoverage, "0");
    assert.equal(run.coverPending, false);
    const agent = await stakedAgent();
    ok(await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId));
    assert.equal(await coverOnChain(run.onchainRunId!), 0n);
  });
});

describe("insurance: claims pay agreed damages after a verified loss, once per run", () => {
  it("a rejected run's poster, refunded in full by the escrow, cannot also claim the agent's coverage", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    await faucet(agent.walletAddress, 8_000_000n);
    ok(await gaslessStake(agent, 8_000_000n));
    const run = await openRun(poster, { reward: 8_000_000n, maxRevisions: 0, requiredCoverage: 8_000_000n });
    const id = run.bountyId;

    let claims = ok(await api("GET", `/api/insurance/bounty/${id}/claims`));
    assert.deepEqual(claims, {
      bountyId: id,
      onchainRunId: run.onchainRunId,
      failedAgentId: null,
      failureKind: null,
      cover: "8000000",
      insuredLoss: "0",
      claimable: false,
      refusal: "NO_FAILED_AGENT",
      claims: [],
    });
    const early = await signedAction(poster.key, "insurance-claim", "run", id);
    fails(await api("POST", `/api/insurance/bounty/${id}/claims`, { body: early }), 409, "NO_FAILED_AGENT");

    ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
    ok(await step(agent.owner.key, id, "start", "start-run"));
    ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: "wrong answer" }));
    const beforeReject = await usdcBalance(poster.address);
    const rejected = ok(await step(poster.key, id, "reject", "reject-run", { reason: "wrong" }));
    assert.equal(rejected.run.state, "REJECTED");
    const refunded = await usdcBalance(poster.address);
    assert.equal(refunded, beforeReject + 8_000_000n + 400_000n, "the escrow refunds reward + fee in full");

    claims = ok(await api("GET", `/api/insurance/bounty/${id}/claims`));
    assert.equal(claims.failedAgentId, agent.agentId);
    assert.equal(claims.failureKind, "REJECTED");
    assert.equal(claims.insuredLoss, "0");
    assert.equal(claims.claimable, false);
    assert.equal(claims.refusal, "LOSS_NOT_VERIFIED");

    const signed = await signedAction(poster.key, "insurance-claim", "run", id);
    fails(await api("POST", `/api/insurance/bounty/${id}/claims`, { body: signed }), 409, "LOSS_NOT_VERIFIED");
    // Nothing moved: the poster has exactly its refund, the agent keeps all of its coverage.
    assert.equal(await usdcBalance(poster.address), refunded);
    assert.equal(await coverageOnChain(agent.agentId), 8_000_000n);
    assert.equal(await usdcBalance(pool), await poolTotal());
    assert.deepEqual(ok(await api("GET", `/api/insurance/bounty/${id}/claims`)).claims, []);
  });

  it("a claim timeout pays the declared damages net of the slash, once: the poster ends with its deposit + the cover, never twice", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent(); // 20 USDC staked: a timeout slashes 10 to the poster
    await faucet(agent.walletAddress, 50_000_000n);
    ok(await gaslessStake(agent, 50_000_000n));
    const start = await usdcBalance(poster.address);
    const run = await openRun(poster, { reward: 30_000_000n, deadlineIn: 30 * DAY, requiredCoverage: 25_000_000n });
    const id = run.bountyId;
    assert.equal(await usdcBalance(poster.address), start - 31_500_000n);
    ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
    // The agent asks for all its coverage back at claim time and lets the run outlast the 14-day cooldown: the
    // coverage backs the run it holds, so it stays.
    ok(await withdraw(agent.owner.key, agent.agentId, "request", 50_000_000n));
    await increaseTime(COOLDOWN + 60);
    fails(await withdraw(agent.owner.key, agent.agentId, "complete"), 409, "COVERAGE_LOCKED");
    const timedOut = ok(await step(poster.key, id, "timeout-slash", "timeout-slash"));
    assert.equal(timedOut.run.state, "TIMED_OUT");
    const afterTimeout = await usdcBalance(poster.address);
    assert.equal(afterTimeout, start + 10_000_000n, "the deposit back (31.5) + half of the 20 USDC stake");
    const locked = fails(await withdraw(agent.owner.key, agent.agentId, "complete"), 409, "COVERAGE_LOCKED");
    assert.match(locked.error.message, /InsurancePoolClaimWindowOpen/, "the run ended: its poster may still claim");

    const claims = ok(await api("GET", `/api/insurance/bounty/${id}/claims`));
    assert.equal(claims.failureKind, "TIMED_OUT");
    assert.equal(claims.cover, "25000000");
    assert.equal(claims.insuredLoss, "15000000", "the 25 of agreed damages - the 10 of slash already received");
    assert.equal(claims.claimable, true);

    const notPoster = await signedAction(agent.owner.key, "insurance-claim", "run", id);
    fails(await api("POST", `/api/insurance/bounty/${id}/claims`, { body: notPoster }), 403, "NOT_RUN_POSTER");
    const signed = await signedAction(poster.key, "insurance-claim", "run", id);
    const paid = ok(await api("POST", `/api/insurance/bounty/${id}/claims`, { body: signed }));
    assert.equal(paid.claim.amountUsdc, "15000000");
    assert.equal(paid.claim.agentTokenId, agent.agentId);
    assert.equal(paid.claim.poster.toLowerCase(), poster.address.toLowerCase());
    assert.equal(paid.claim.bountyId, id);
    assert.equal(await usdcBalance(poster.address), start + 25_000_000n, "deposit back + exactly the agreed damages");
    assert.equal(await coverageOnChain(agent.agentId), 50_000_000n - 15_000_000n);

    const listed = ok(await api("GET", `/api/insurance/bounty/${id}/claims`));
    assert.equal(listed.claimable, false);
    assert.equal(listed.refusal, "ALREADY_CLAIMED");
    assert.equal(listed.claims.length, 1);
    assert.deepEqual(listed.claims[0], paid.claim);
    assert.equal(listed.claims[0].txHash, paid.txHash);

    const again = await signedAction(poster.key, "insurance-claim", "run", id);
    fails(await api("POST", `/api/insurance/bounty/${id}/claims`, { body: again }), 409, "ALREADY_CLAIMED");
    assert.equal(await usdcBalance(poster.address), start + 25_000_000n);
    assert.equal(await usdcBalance(pool), await poolTotal());
    fails(await api("GET", "/api/insurance/bounty/999999/claims"), 404, "RUN_NOT_FOUND");
    fails(await api("GET", "/api/insurance/bounty/0/claims"), 400, "VALIDATION_ERROR");

    // After the claim window the rest (the pending 50 capped to the 35 left) is the owner's.
    await increaseTime(7 * DAY + 60);
    const ownerBefore = await usdcBalance(agent.owner.address);
    const done = ok(await withdraw(agent.owner.key, agent.agentId, "complete"));
    assert.equal(done.amountUsdc, "35000000");
    assert.equal(await usdcBalance(agent.owner.address), ownerBefore + 35_000_000n);
    assert.equal(await coverageOnChain(agent.agentId), 0n);
    assert.equal(await usdcBalance(pool), await poolTotal());
  });

  it("no cover declared: a timeout's refund and slash are all the poster gets (409 NO_COVER_DECLARED)", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    await faucet(agent.walletAddress, 50_000_000n);
    ok(await gaslessStake(agent, 50_000_000n));
    const start = await usdcBalance(poster.address);
    const run = await openRun(poster, { reward: 30_000_000n, deadlineIn: 30 * DAY });
    const id = run.bountyId;
    ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
    await increaseTime(7 * DAY + 60);
    ok(await step(poster.key, id, "timeout-slash", "timeout-slash"));
    const claims = ok(await api("GET", `/api/insurance/bounty/${id}/claims`));
    assert.equal(claims.cover, "0");
    assert.equal(claims.refusal, "NO_COVER_DECLARED");
    const signed = await signedAction(poster.key, "insurance-claim", "run", id);
    fails(await api("POST", `/api/insurance/bounty/${id}/claims`, { body: signed }), 409, "NO_COVER_DECLARED");
    assert.equal(await usdcBalance(poster.address), start + 10_000_000n, "its deposit back + the slash");
    assert.equal(await coverageOnChain(agent.agentId), 50_000_000n);
  });

  it("a dispute the agent lost is a verified loss; nothing is paid when the slash already covered the damages", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    await faucet(agent.walletAddress, 8_000_000n);
    ok(await gaslessStake(agent, 8_000_000n));
    const run = await openRun(poster, { reward: 8_000_000n, maxRevisions: 0, requiredCoverage: 8_000_000n });
    const id = run.bountyId;
    ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
    ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: "plagiarised" }));
    ok(await step(poster.key, id, "dispute", "dispute-run", { reason: "plagiarised" }));
    ok(await api("POST", `/api/runs/${id}/resolve`, { body: { outcome: "poster" }, headers: adminHeaders() }));
    const claims = ok(await api("GET", `/api/insurance/bounty/${id}/claims`));
    assert.equal(claims.failureKind, "DISPUTE_LOST");
    // 8 of agreed damages, minus the 10 USDC slashed to the poster: nothing left to insure.
    assert.equal(claims.insuredLoss, "0");
    assert.equal(claims.refusal, "NO_INSURED_LOSS");
    const signed = await signedAction(poster.key, "insurance-claim", "run", id);
    const before = await usdcBalance(poster.address);
    fails(await api("POST", `/api/insurance/bounty/${id}/claims`, { body: signed }), 409, "NO_INSURED_LOSS");
    assert.equal(await usdcBalance(poster.address), before);
    assert.equal(await coverageOnChain(agent.agentId), 8_000_000n);
    // The run reopened: its cover stays what its first agent claimed under.
    assert.equal(await coverOnChain(run.onchainRunId!), 8_000_000n);
    assert.equal(ok(await api("GET", `/api/runs/${id}`)).requiredCoverage, "8000000");
  });
});

import assert from "node:assert/strict";
import { after, afterEach, describe, it } from "node:test";
import { cidOf } from "@agenthub/api/stores/ipfs";
import { RunEscrowAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { buildActionMessage } from "@agenthub/sdk/protocol";
import { keccak256, sha256, toHex } from "viem";
import { claimAgent, registerAgent, signedAction, stakedAgent, walletFromKey } from "../support/agents.ts";
import {
  adminHeaders,
  chainTime,
  claim,
  createDraft,
  escrowAddress,
  escrowLedger,
  escrowRun,
  feesAccrued,
  fundWithAuthorization,
  newPoster,
  openRun,
  type RunBody,
  rewardsPaidOut,
  signConsent,
  signFundingAuthorization,
  step,
  usdcBalance,
} from "../support/runs.ts";
import { api, chain, db, deployments, increaseTime, publicClient, stack, waitUntil } from "../support/stack.ts";

after(() => db.end());

// After every test, whatever it did: the escrow holds exactly the reward + fee of funded, unpaid runs.
afterEach(async () => {
  const ledger = await waitUntil("indexed escrow ledger", async () => {
    const l = await escrowLedger();
    return l.held === l.balance ? l : undefined;
  });
  assert.equal(ledger.balance, ledger.owed, "escrow USDC balance equals totalOwed()");
  assert.equal(ledger.held, ledger.balance, "escrow USDC balance equals indexed held runs");
});

type Agent = Awaited<ReturnType<typeof stakedAgent>>;
const DAY = 24 * 3600;

async function getRun(id: number) {
  const res = await api("GET", `/api/runs/${id}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as RunBody & Record<string, any>;
}

function ok(res: { status: number; body: any }, status = 200) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

function fails(res: { status: number; body: any }, status: number, code: string) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.error.code, code, JSON.stringify(res.body));
}

async function agentStats(agentId: number) {
  const res = await api("GET", `/api/agents/${agentId}`);
  return {
    status: res.body.status as string,
    ...(res.body.reputation as { completions: number; totalClaimed: number }),
  };
}

/** Claims with the agent's owner key, starts, submits: the run is SUBMITTED. */
async function claimedAndSubmitted(agent: Agent, id: number) {
  ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
  ok(await step(agent.owner.key, id, "start", "start-run"));
  return ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: { answer: "a + b" } }));
}

describe("runs: the full lifecycle", () => {
  it("create -> fund -> claim -> start -> submit -> revision -> resubmit -> approve, paid to the base unit", async () => {
    const poster = await newPoster(100_000_000n);
    const agent = await stakedAgent();
    const before = await agentStats(agent.agentId);
    const reward = 12_345_679n; // fee rounds up: 617_284
    const fee = 617_284n;
    const balances0 = {
      poster: await usdcBalance(poster.address),
      payee: await usdcBalance(agent.owner.address),
      fees: await feesAccrued(),
      escrow: await usdcBalance(escrowAddress),
    };

    // Create: a DRAFT whose request JSON is stored under a real CID.
    const created = await createDraft(poster.key, poster.address, { reward, maxRevisions: 2, title: "Adder" });
    const draft = ok(created, 201).run;
    assert.equal(draft.state, "DRAFT");
    assert.equal(draft.reward, reward.toString());
    assert.equal(draft.fee, fee.toString());
    assert.equal(draft.onchainRunId, null);
    assert.equal(draft.posterAddress, poster.address);
    assert.match(draft.ipfsHash, /^ipfs:\/\/b[a-z2-7]+$/);
    const bytes = new Uint8Array(await (await fetch(`${stack.apiUrl}/ipfs/${draft.ipfsHash.slice(7)}`)).arrayBuffer());
    assert.equal(await cidOf(bytes), draft.ipfsHash.slice(7));
    const request = JSON.parse(new TextDecoder().decode(bytes));
    assert.equal(request.title, "Adder");
    assert.equal(request.bountyId, draft.bountyId);
    assert.equal(request.reward, reward.toString());
    const id: number = draft.bountyId;

    // Fund with a permit: the poster has no ETH; reward + fee move into the escrow.
    const funded = ok(await fundWithAuthorization(poster.key, draft)).run;
    assert.equal(funded.state, "OPEN");
    assert.equal(funded.bountyId, id, "bountyId is stable across funding");
    assert.equal(funded.ipfsHash, draft.ipfsHash);
    assert.ok(funded.onchainRunId);
    const onchain = await escrowRun(funded.onchainRunId);
    assert.equal(onchain.poster, poster.address);
    assert.equal(onchain.reward, reward);
    assert.equal(onchain.state, 1); // Open
    assert.equal(await usdcBalance(poster.address), balances0.poster - reward - fee);
    assert.equal(await usdcBalance(escrowAddress), balances0.escrow + reward + fee);
    assert.equal(await publicClient.getBalance({ address: poster.address }), 0n, "the poster never needed ETH");

    // Claim (signed by the agent's wallet), start and submit (signed by the identity owner).
    // The agent's wallet signs the request; the token's owner signs the on-chain consent the escrow checks.
    const claimed = ok(
      await claim(agent.agentKey, agent.walletAddress, id, agent.agentId, { consentKey: agent.owner.key }),
    );
    assert.equal(claimed.success, true);
    assert.equal(claimed.run.state, "CLAIMED");
    assert.equal(claimed.run.claimedBy, agent.agentId);
    assert.equal(claimed.run.claimedByWallet, agent.walletAddress);
    assert.equal(claimed.run.stake, "20000000");
    assert.ok(claimed.run.claimedAt);
    assert.deepEqual(claimed.agent, { id: agent.agentId, status: "PROVISIONAL", stakedAmount: "20000000" });
    assert.match(claimed.message, /claimed/);

    assert.equal(ok(await step(agent.owner.key, id, "start", "start-run")).run.state, "IN_PROGRESS");
    const first = { files: { "add.ts": "export const add = (a: number, b: number) => a - b;" } };
    const submitted = ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: first })).run;
    assert.equal(submitted.state, "SUBMITTED");
    const firstBytes = new TextEncoder().encode(JSON.stringify(first));
    assert.equal(submitted.deliverableHash, sha256(firstBytes), "the chain keeps the deliverable's sha-256");
    assert.equal(submitted.deliverableUri, `ipfs://${await cidOf(firstBytes)}`);
    assert.ok(submitted.submittedAt);

    // Revision and resubmission (with a bare hash this time).
    const revised = ok(
      await step(poster.key, id, "request-revision", "request-revision", { feedback: "subtracts instead of adding" }),
    ).run;
    assert.equal(revised.state, "REVISION_REQUESTED");
    assert.equal(revised.revisions, 1);
    const secondHash = keccak256(toHex("fixed adder"));
    const resubmitted = ok(
      await step(
        agent.agentKey,
        id,
        "submit",
        "submit-run",
        { deliverableHash: secondHash },
        {
          consentKey: agent.owner.key,
        },
      ),
    ).run;
    assert.equal(resubmitted.state, "SUBMITTED");
    assert.equal(resubmitted.deliverableHash, secondHash);
    assert.equal(resubmitted.deliverableUri, null);

    // Approve: reward to the agent's owner, the 5% fee accrues in the escrow for the treasury's next sweep.
    const approved = ok(await step(poster.key, id, "approve", "approve-run"));
    assert.equal(approved.run.state, "APPROVED");
    assert.match(approved.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(await usdcBalance(poster.address), balances0.poster - reward - fee);
    assert.equal(await usdcBalance(agent.owner.address), balances0.payee + reward);
    assert.equal(await feesAccrued(), balances0.fees + fee);
    assert.equal(await usdcBalance(escrowAddress), balances0.escrow + fee);

    // Reputation inputs: one claim, one completion.
    const stats = await agentStats(agent.agentId);
    assert.equal(stats.totalClaimed, before.totalClaimed + 1);
    assert.equal(stats.completions, before.completions + 1);
    const indexed = await db.query(
      "select completions, total_claimed, total_volume::text from chain.agent_run_stats where agent_id = $1",
      [agent.agentId],
    );
    assert.equal(indexed.rows[0].total_volume, reward.toString());

    // History: every step with who asked for it, the transaction and the time.
    const history = ok(await api("GET", `/api/runs/${id}/events`));
    assert.deepEqual(
      history.events.map((e: any) => [e.kind, e.state]),
      [
        ["DRAFTED", "DRAFT"],
        ["CREATED", "OPEN"],
        ["CLAIMED", "CLAIMED"],
        ["STARTED", "IN_PROGRESS"],
        ["SUBMITTED", "SUBMITTED"],
        ["REVISION_REQUESTED", "REVISION_REQUESTED"],
        ["SUBMITTED", "SUBMITTED"],
        ["COMPLETED", "APPROVED"],
      ],
    );
    const actors = history.events.map((e: any) => e.actor?.toLowerCase());
    assert.deepEqual(
      actors,
      [
        poster.address,
        poster.address,
        agent.walletAddress,
        agent.owner.address,
        agent.owner.address,
        poster.address,
        agent.walletAddress,
        poster.address,
      ].map((a) => a.toLowerCase()),
    );
    assert.equal(history.events[5].note, "subtracts instead of adding");
    for (const e of history.events.slice(1)) {
      assert.match(e.txHash, /^0x[0-9a-f]{64}$/);
      assert.ok(!Number.isNaN(Date.parse(e.timestamp)));
    }
    assert.equal(history.events[7].amount, reward.toString());
  });

  it("lists runs with the list form, filters by state and by minReward in base units, and paginates", async () => {
    const poster = await newPoster(2_000_000_000n);
    const big = await openRun(poster, { reward: 987_654_321n });
    const draft = ok(await createDraft(poster.key, poster.address, { reward: 987_654_322n }), 201).run;

    const open = ok(await api("GET", "/api/runs?state=OPEN&minReward=987654321&limit=100"));
    assert.ok(open.runs.some((r: any) => r.bountyId === big.bountyId));
    assert.ok(open.runs.every((r: any) => r.state === "OPEN" && BigInt(r.reward) >= 987_654_321n));
    assert.ok(!open.runs.some((r: any) => r.bountyId === draft.bountyId));
    const item = open.runs.find((r: any) => r.bountyId === big.bountyId);
    for (const omitted of ["claimedByWallet", "stake", "deliverableHash", "claimedAt", "submittedAt"]) {
      assert.equal(omitted in item, false, `list items omit ${omitted}`);
    }
    for (const field of [
      "bountyId",
      "posterAddress",
      "ipfsHash",
      "reward",
      "deadline",
      "state",
      "claimedBy",
      "createdAt",
    ]) {
      assert.ok(field in item, `list items have ${field}`);
    }
    const detail = await getRun(big.bountyId);
    for (const field of ["claimedByWallet", "stake", "deliverableHash", "claimedAt", "submittedAt"]) {
      assert.ok(field in detail, `the single-run form has ${field}`);
    }

    const drafts = ok(await api("GET", "/api/runs?state=DRAFT&minReward=987654322"));
    assert.deepEqual(
      drafts.runs.map((r: any) => r.bountyId),
      [draft.bountyId],
    );
    const none = ok(await api("GET", "/api/runs?minReward=987654323000"));
    assert.equal(none.runs.length, 0);
    assert.equal(none.pagination.total, 0);

    const page = ok(await api("GET", "/api/runs?page=1&limit=1"));
    assert.equal(page.runs.length, 1);
    assert.equal(page.pagination.limit, 1);
    assert.ok(page.pagination.total >= 2);
    assert.equal(page.pagination.totalPages, page.pagination.total);
    assert.ok(page.runs[0].bountyId >= draft.bountyId, "newest first");

    fails(await api("GET", "/api/runs?minReward=1.5"), 400, "VALIDATION_ERROR");
    fails(await api("GET", "/api/runs?state=FINISHED"), 400, "VALIDATION_ERROR");
    fails(await api("GET", "/api/runs?limit=101"), 400, "VALIDATION_ERROR");
    fails(await api("GET", "/api/runs/999999999"), 404, "RUN_NOT_FOUND");
    fails(await api("GET", "/api/runs/999999999/events"), 404, "RUN_NOT_FOUND");
    ok(await step(poster.key, big.bountyId, "cancel", "cancel-run"));
  });

  it("funds from a direct createRun transaction, counted once and only for its own draft", async () => {
    const poster = await newPoster(100_000_000n);
    await api("POST", "/api/dev/faucet", { body: { address: poster.address, eth: (10n ** 17n).toString() } });
    const reward = 5_000_000n;
    const draft = ok(await createDraft(poster.key, poster.address, { reward, maxRevisions: 1 }), 201).run;
    const other = ok(await createDraft(poster.key, poster.address, { reward }), 201).run;
    const { wallet, account } = walletFromKey(poster.key);
    const approveTx = await wallet.writeContract({
      address: deployments.usdc.address,
      abi: TestUSDCAbi,
      functionName: "approve",
      args: [escrowAddress, reward + reward / 20n],
      account,
      chain,
    });
    await publicClient.waitForTransactionReceipt({ hash: approveTx });
    const deadline = BigInt(Math.floor(Date.parse(draft.deadline) / 1000));
    const createTx = await wallet.writeContract({
      address: escrowAddress,
      abi: RunEscrowAbi,
      functionName: "createRun",
      args: [reward, deadline, 1, 0n, draft.ipfsHash],
      account,
      chain,
    });
    await publicClient.waitForTransactionReceipt({ hash: createTx });

    // Another draft cannot adopt this transaction; an unknown hash is not a funding.
    const wrong = await step(poster.key, other.bountyId, "fund", "fund-run", { txHash: createTx });
    fails(wrong, 400, "FUNDING_MISMATCH");
    fails(
      await step(poster.key, other.bountyId, "fund", "fund-run", { txHash: keccak256("0x01") }),
      400,
      "TX_NOT_FOUND",
    );
    fails(await step(poster.key, draft.bountyId, "fund", "fund-run", {}), 400, "VALIDATION_ERROR");

    const funded = ok(await step(poster.key, draft.bountyId, "fund", "fund-run", { txHash: createTx }));
    assert.equal(funded.run.state, "OPEN");
    assert.equal(funded.run.fundingTx, createTx);
    assert.equal(funded.txHash, createTx);
    fails(await step(poster.key, draft.bountyId, "fund", "fund-run", { txHash: createTx }), 409, "RUN_ALREADY_FUNDED");
    const history = ok(await api("GET", `/api/runs/${draft.bountyId}/events`));
    assert.equal(history.events[1].sender.toLowerCase(), poster.address.toLowerCase(), "sent by the poster itself");

    // An authorization for other terms, another amount, expired or malformed is refused before anything is held.
    const otherRun = await getRun(other.bountyId);
    for (const [authorization, code] of [
      [await signFundingAuthorization(poster.key, otherRun, { terms: { maxRevisions: 0 } }), "INVALID_AUTHORIZATION"],
      [await signFundingAuthorization(poster.key, otherRun, { terms: { reward: 1n } }), "INVALID_AUTHORIZATION"],
      [await signFundingAuthorization(poster.key, otherRun, { value: 1n }), "INVALID_AUTHORIZATION"],
      [
        await signFundingAuthorization(poster.key, otherRun, { validBefore: (await chainTime()) - 1n }),
        "INVALID_AUTHORIZATION",
      ],
      [
        { validBefore: Number((await chainTime()) + 3600n), signature: `0x${"11".repeat(65)}` },
        "INVALID_AUTHORIZATION",
      ],
    ] as const) {
      fails(await step(poster.key, other.bountyId, "fund", "fund-run", { authorization }), 400, code);
    }
    // The retired permit funding is not accepted any more.
    fails(
      await step(poster.key, other.bountyId, "fund", "fund-run", {
        permit: { deadline: Number((await chainTime()) + 3600n), signature: `0x${"11".repeat(65)}` },
      }),
      400,
      "VALIDATION_ERROR",
    );
    assert.equal((await getRun(other.bountyId)).state, "DRAFT");
    // ... and a good authorization still funds it afterwards.
    assert.equal(ok(await fundWithAuthorization(poster.key, other)).run.state, "OPEN");

    // Clean up: the poster cancels both and is refunded.
    ok(await step(poster.key, draft.bountyId, "cancel", "cancel-run"));
    ok(await step(poster.key, other.bountyId, "cancel", "cancel-run"));
  });
});

describe("runs: endings other than approval", () => {
  it("rejects only after the maximum revisions, refunding the poster and counting a failure", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const run = await openRun(poster, { reward: 8_000_000n, maxRevisions: 1 });
    const id = run.bountyId;
    const posterBefore = await usdcBalance(poster.address);
    await claimedAndSubmitted(agent, id);
    fails(await step(poster.key, id, "reject", "reject-run", { reason: "too early" }), 409, "REVISIONS_REMAINING");
    ok(await step(poster.key, id, "request-revision", "request-revision", { feedback: "again" }));
    ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: "second try" }));
    fails(
      await step(poster.key, id, "request-revision", "request-revision", { feedback: "once more" }),
      409,
      "REVISIONS_EXHAUSTED",
    );
    const rejected = ok(await step(poster.key, id, "reject", "reject-run", { reason: "still wrong" }));
    assert.equal(rejected.run.state, "REJECTED");
    assert.equal(rejected.run.failedAgentId, agent.agentId);
    assert.equal(await usdcBalance(poster.address), posterBefore + BigInt(run.reward) + BigInt(run.fee));
    const stats = await agentStats(agent.agentId);
    assert.equal(stats.totalClaimed, 1);
    assert.equal(stats.completions, 0);
    const failures = await db.query("select failures from chain.agent_run_stats where agent_id = $1", [agent.agentId]);
    assert.equal(failures.rows[0].failures, 1);
    // Terminal: nothing more happens.
    fails(await step(poster.key, id, "approve", "approve-run"), 409, "INVALID_RUN_STATE");
    fails(await step(agent.owner.key, id, "dispute", "dispute-run", { reason: "unfair" }), 409, "INVALID_RUN_STATE");
  });

  it("cancels an OPEN run with a full refund; only the poster, only while OPEN", async () => {
    const poster = await newPoster();
    const stranger = await newPoster(0n);
    const agent = await stakedAgent();
    const posterBefore = await usdcBalance(poster.address);
    const run = await openRun(poster, { reward: 3_000_000n });
    fails(await step(stranger.key, run.bountyId, "cancel", "cancel-run"), 403, "NOT_RUN_POSTER");
    const cancelled = ok(await step(poster.key, run.bountyId, "cancel", "cancel-run"));
    assert.equal(cancelled.run.state, "CANCELLED");
    assert.equal(await usdcBalance(poster.address), posterBefore);
    fails(await step(poster.key, run.bountyId, "cancel", "cancel-run"), 409, "INVALID_RUN_STATE");
    fails(await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId), 400, "RUN_NOT_AVAILABLE");

    // A claimed run cannot be cancelled; a draft has nothing to cancel.
    const claimed = await openRun(poster);
    ok(await claim(agent.owner.key, agent.owner.address, claimed.bountyId, agent.agentId));
    fails(await step(poster.key, claimed.bountyId, "cancel", "cancel-run"), 409, "INVALID_RUN_STATE");
    const draft = ok(await createDraft(poster.key, poster.address), 201).run;
    fails(await step(poster.key, draft.bountyId, "cancel", "cancel-run"), 409, "INVALID_RUN_STATE");
    // Leave the claimed run settled: submit and approve.
    ok(await step(agent.owner.key, claimed.bountyId, "submit", "submit-run", { deliverable: "done" }));
    ok(await step(poster.key, claimed.bountyId, "approve", "approve-run"));
  });

  it("resolves a dispute for the agent: APPROVED and paid", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const run = await openRun(poster, { reward: 6_000_000n });
    const id = run.bountyId;
    await claimedAndSubmitted(agent, id);
    const payeeBefore = await usdcBalance(agent.owner.address);
    const feesBefore = await feesAccrued();
    const disputed = ok(await step(agent.owner.key, id, "dispute", "dispute-run", { reason: "poster went silent" }));
    assert.equal(disputed.run.state, "DISPUTED");
    fails(await step(poster.key, id, "approve", "approve-run"), 409, "INVALID_RUN_STATE");
    fails(await api("POST", `/api/runs/${id}/resolve`, { body: { outcome: "agent" } }), 401, "ADMIN_AUTH_REQUIRED");
    fails(
      await api("POST", `/api/runs/${id}/resolve`, { body: { outcome: "nobody" }, headers: adminHeaders() }),
      400,
      "VALIDATION_ERROR",
    );
    const resolved = ok(
      await api("POST", `/api/runs/${id}/resolve`, { body: { outcome: "agent" }, headers: adminHeaders() }),
    );
    assert.equal(resolved.run.state, "APPROVED");
    // Paid as an approval: credited to the agent, then to its owner by the payout job.
    await rewardsPaidOut(agent.agentId);
    assert.equal(await usdcBalance(agent.owner.address), payeeBefore + BigInt(run.reward));
    assert.equal(await feesAccrued(), feesBefore + BigInt(run.fee));
    assert.equal((await agentStats(agent.agentId)).completions, 1);
    fails(
      await api("POST", `/api/runs/${id}/resolve`, { body: { outcome: "agent" }, headers: adminHeaders() }),
      409,
      "INVALID_RUN_STATE",
    );
    const kinds = ok(await api("GET", `/api/runs/${id}/events`)).events.map((e: any) => e.kind);
    assert.deepEqual(kinds.slice(-3), ["DISPUTED", "DISPUTE_RESOLVED_FOR_AGENT", "COMPLETED"]);
  });

  it("resolves a dispute for the poster: stake slashed to the poster, agent FROZEN, run OPEN again for others", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const other = await stakedAgent();
    const run = await openRun(poster, { reward: 4_000_000n });
    const id = run.bountyId;
    await claimedAndSubmitted(agent, id);
    const stranger = await newPoster(0n);
    fails(await step(stranger.key, id, "dispute", "dispute-run", { reason: "me too" }), 403, "NOT_RUN_PARTY");
    ok(await step(poster.key, id, "dispute", "dispute-run", { reason: "plagiarised" }));
    const posterBefore = await usdcBalance(poster.address);
    const resolved = ok(
      await api("POST", `/api/runs/${id}/resolve`, {
        body: { outcome: "poster", note: "copied from elsewhere" },
        headers: adminHeaders(),
      }),
    );
    assert.equal(resolved.run.state, "OPEN");
    assert.equal(resolved.run.claimedBy, null);
    assert.equal(resolved.run.deliverableHash, null);
    assert.equal(resolved.run.failedAgentId, agent.agentId);
    assert.equal(await usdcBalance(poster.address), posterBefore + 10_000_000n, "50% of the 20 USDC stake");
    const stats = await agentStats(agent.agentId);
    assert.equal(stats.status, "FROZEN");
    assert.equal(stats.completions, 0);
    assert.equal(stats.totalClaimed, 1);

    // The loser cannot come back; another agent can claim and finish.
    const elig = ok(await api("GET", `/api/runs/${id}/claim-eligibility?agentId=${agent.agentId}`));
    assert.equal(elig.eligible, false);
    assert.ok(elig.reasons.includes("AGENT_FROZEN"));
    assert.ok(elig.reasons.includes("AGENT_FAILED_THIS_RUN"));
    fails(await claim(agent.owner.key, agent.owner.address, id, agent.agentId), 403, "AGENT_FROZEN");
    await claimedAndSubmitted(other, id);
    ok(await step(poster.key, id, "approve", "approve-run"));
    const history = ok(await api("GET", `/api/runs/${id}/events`)).events;
    const lost = history.find((e: any) => e.kind === "DISPUTE_RESOLVED_FOR_POSTER");
    assert.equal(lost.state, "OPEN");
    assert.equal(lost.amount, "10000000");
    assert.equal(lost.note, "copied from elsewhere");
  });

  it("timeout slash: not before 7 days after the claim (chain time), then refund + slash + FROZEN", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const run = await openRun(poster, { reward: 7_000_000n, deadlineIn: 30 * DAY });
    const id = run.bountyId;
    ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
    ok(await step(agent.owner.key, id, "start", "start-run"));
    const posterBefore = await usdcBalance(poster.address);
    fails(await step(poster.key, id, "timeout-slash", "timeout-slash"), 409, "TIMEOUT_NOT_REACHED");
    await increaseTime(7 * DAY - 120);
    fails(await step(poster.key, id, "timeout-slash", "timeout-slash"), 409, "TIMEOUT_NOT_REACHED");
    fails(await step(agent.owner.key, id, "timeout-slash", "timeout-slash"), 403, "NOT_RUN_POSTER");
    await increaseTime(121);
    const slashed = ok(await step(poster.key, id, "timeout-slash", "timeout-slash"));
    assert.equal(slashed.run.state, "TIMED_OUT");
    assert.equal(slashed.run.failedAgentId, agent.agentId);
    assert.equal(
      await usdcBalance(poster.address),
      posterBefore + BigInt(run.reward) + BigInt(run.fee) + 10_000_000n,
      "refund plus half the stake",
    );
    const stats = await agentStats(agent.agentId);
    assert.equal(stats.status, "FROZEN");
    assert.equal(stats.totalClaimed, 1);
    assert.equal(stats.completions, 0);
    fails(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: "late" }), 409, "INVALID_RUN_STATE");
  });
});

describe("runs: claiming", () => {
  it("checks eligibility and refuses claims after the deadline (moved by chain time)", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const unstaked = await registerAgent();
    const run = await openRun(poster, { deadlineIn: 3600 });
    const id = run.bountyId;

    const yes = ok(await api("GET", `/api/runs/${id}/claim-eligibility?agentId=${agent.agentId}`));
    assert.deepEqual(yes, {
      eligible: true,
      reasons: [],
      messages: [],
      agent: {
        id: agent.agentId,
        status: "PROVISIONAL",
        stakedAmount: "20000000",
        hasMinStake: true,
        availableCoverage: "0",
      },
      run: { id, state: "OPEN", reward: run.reward, requiredCoverage: "0" },
    });
    const no = ok(await api("GET", `/api/runs/${id}/claim-eligibility?agentId=${unstaked.agentId}`));
    assert.equal(no.eligible, false);
    assert.deepEqual(no.reasons, ["INSUFFICIENT_STAKE"]);
    assert.deepEqual(no.agent, {
      id: unstaked.agentId,
      status: "UNVERIFIED",
      stakedAmount: "0",
      hasMinStake: false,
      availableCoverage: "0",
    });
    fails(await api("GET", `/api/runs/${id}/claim-eligibility?agentId=99999999`), 404, "AGENT_NOT_FOUND");
    fails(await api("GET", `/api/runs/99999999/claim-eligibility?agentId=${agent.agentId}`), 404, "RUN_NOT_FOUND");
    fails(await api("GET", `/api/runs/${id}/claim-eligibility`), 400, "VALIDATION_ERROR");

    // The unstaked agent's owner signs a valid claim: 403 INSUFFICIENT_STAKE, nothing changes.
    const { owner } = await claimAgent(unstaked.agentId, unstaked.claimCode);
    fails(await claim(owner.key, owner.address, id, unstaked.agentId), 403, "INSUFFICIENT_STAKE");
    fails(await claim(agent.owner.key, agent.owner.address, id, 99999999), 404, "AGENT_NOT_FOUND");
    fails(await claim(agent.owner.key, agent.owner.address, 99999999, agent.agentId), 404, "RUN_NOT_FOUND");
    assert.equal((await getRun(id)).state, "OPEN");

    await increaseTime(3601);
    const late = ok(await api("GET", `/api/runs/${id}/claim-eligibility?agentId=${agent.agentId}`));
    assert.deepEqual(late.reasons, ["DEADLINE_PASSED"]);
    fails(await claim(agent.owner.key, agent.owner.address, id, agent.agentId), 400, "RUN_NOT_AVAILABLE");
    // Funding a draft whose deadline passed is refused too; the open run is cancelled for a refund.
    const draft = ok(await createDraft(poster.key, poster.address, { deadlineIn: 600 }), 201).run;
    await increaseTime(601);
    fails(await fundWithAuthorization(poster.key, draft), 400, "DEADLINE_PASSED");
    ok(await step(poster.key, id, "cancel", "cancel-run"));
  });

  it("two agents claiming the same run at once: exactly one wins", async () => {
    const poster = await newPoster();
    const [a, b] = [await stakedAgent(), await stakedAgent()];
    const run = await openRun(poster);
    const id = run.bountyId;
    const [ra, rb] = await Promise.all([
      claim(a.owner.key, a.owner.address, id, a.agentId),
      claim(b.owner.key, b.owner.address, id, b.agentId),
    ]);
    const statuses = [ra.status, rb.status].sort();
    assert.deepEqual(statuses, [200, 400], `${JSON.stringify(ra.body)} ${JSON.stringify(rb.body)}`);
    const [winner, loser] = ra.status === 200 ? [a, rb] : [b, ra];
    assert.equal(loser.body.error.code, "RUN_NOT_AVAILABLE");
    const onchain = await escrowRun(run.onchainRunId!);
    assert.equal(onchain.agentId, BigInt(winner.agentId));
    assert.equal((await getRun(id)).claimedBy, winner.agentId);
    const claims = ok(await api("GET", `/api/runs/${id}/events`)).events.filter((e: any) => e.kind === "CLAIMED");
    assert.equal(claims.length, 1);
    ok(await step(winner.owner.key, id, "submit", "submit-run", { deliverable: "won" }));
    ok(await step(poster.key, id, "approve", "approve-run"));
  });

  it("an agent becomes ESTABLISHED after 5 completions and 30 days staked (chain time) and keeps claiming", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    for (let i = 0; i < 5; i++) {
      // Five distinct posters: one poster counts at most one run a day toward an agent's reputation.
      const by = i === 0 ? poster : await newPoster();
      const run = await openRun(by, { reward: 1_000_000n, maxRevisions: 0, deadlineIn: 60 * DAY });
      await claimedAndSubmitted(agent, run.bountyId);
      ok(await step(by.key, run.bountyId, "approve", "approve-run"));
    }
    const stats = await agentStats(agent.agentId);
    assert.equal(stats.completions, 5);
    assert.equal(stats.status, "PROVISIONAL", "5 completions but not 30 days yet");
    await increaseTime(30 * DAY);
    // The API's chain clock caches the latest block for up to 500 ms.
    await waitUntil("ESTABLISHED", async () => (await agentStats(agent.agentId)).status === "ESTABLISHED", 3_000);
    const run = await openRun(poster, { reward: 1_000_000n });
    const elig = ok(await api("GET", `/api/runs/${run.bountyId}/claim-eligibility?agentId=${agent.agentId}`));
    assert.equal(elig.agent.status, "ESTABLISHED");
    const claimed = ok(await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId));
    assert.equal(claimed.agent.status, "ESTABLISHED");
    ok(await step(agent.owner.key, run.bountyId, "submit", "submit-run", { deliverable: "sixth" }));
    ok(await step(poster.key, run.bountyId, "approve", "approve-run"));
    assert.equal((await agentStats(agent.agentId)).completions, 6);
  });
});

describe("runs: wrong actor, wrong state, bad signatures change nothing", () => {
  it("answers 4xx with stable codes and leaves the run and its history untouched", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const intruder = await stakedAgent();
    const run = await openRun(poster);
    const id = run.bountyId;
    ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
    const snapshot = async () => {
      const r = await getRun(id);
      const events = ok(await api("GET", `/api/runs/${id}/events`)).events.length;
      return { state: r.state, revisions: r.revisions, claimedBy: r.claimedBy, events };
    };
    const before = await snapshot();

    // Wrong actor.
    fails(await step(intruder.owner.key, id, "start", "start-run"), 403, "NOT_RUN_AGENT");
    fails(await step(poster.key, id, "start", "start-run"), 403, "NOT_RUN_AGENT");
    fails(await step(agent.owner.key, id, "cancel", "cancel-run"), 403, "NOT_RUN_POSTER");
    // Wrong state.
    fails(await step(poster.key, id, "approve", "approve-run"), 409, "INVALID_RUN_STATE");
    fails(
      await step(poster.key, id, "request-revision", "request-revision", { feedback: "x" }),
      409,
      "INVALID_RUN_STATE",
    );
    fails(await step(agent.owner.key, id, "dispute", "dispute-run", { reason: "x" }), 409, "INVALID_RUN_STATE");
    fails(await claim(intruder.owner.key, intruder.owner.address, id, intruder.agentId), 400, "RUN_NOT_AVAILABLE");
    fails(
      await api("POST", `/api/runs/${id}/resolve`, { body: { outcome: "poster" }, headers: adminHeaders() }),
      409,
      "INVALID_RUN_STATE",
    );
    // Claiming for an agent the signer does not control.
    const other = await openRun(poster);
    fails(
      await claim(intruder.owner.key, intruder.owner.address, other.bountyId, agent.agentId),
      403,
      "WALLET_MISMATCH",
    );
    fails(await claim(agent.owner.key, intruder.owner.address, other.bountyId, agent.agentId), 403, "WALLET_MISMATCH");
    // Signature problems: action bound to another run, another action, expired, reused.
    // (Each carries a valid on-chain consent: the request's own signature is what is refused.)
    const consent = await signConsent(agent.owner.key, id, "start");
    const forOther = await signedAction(agent.owner.key, "start-run", "run", other.bountyId);
    fails(await api("POST", `/api/runs/${id}/start`, { body: { ...forOther, consent } }), 401, "INVALID_SIGNATURE");
    const wrongAction = await signedAction(agent.owner.key, "submit-run", "run", id);
    fails(await api("POST", `/api/runs/${id}/start`, { body: { ...wrongAction, consent } }), 401, "INVALID_SIGNATURE");
    const nonce = (await api("GET", "/api/auth/nonce")).body.nonce;
    const expiredMessage = buildActionMessage({
      address: agent.owner.address,
      action: "start-run",
      kind: "run",
      id,
      nonce,
      apiUrl: stack.env.PUBLIC_URL!,
      now: new Date(Date.now() - 600_000),
      ttlSeconds: 60,
    });
    const expired = {
      message: expiredMessage,
      signature: await agent.owner.account.signMessage({ message: expiredMessage }),
      consent,
    };
    fails(await api("POST", `/api/runs/${id}/start`, { body: expired }), 401, "INVALID_SIGNATURE");
    const tampered = await signedAction(agent.owner.key, "start-run", "run", id);
    fails(
      await api("POST", `/api/runs/${id}/start`, {
        body: {
          message: tampered.message,
          signature: await intruder.owner.account.signMessage({ message: tampered.message }),
          consent,
        },
      }),
      401,
      "INVALID_SIGNATURE",
    );
    fails(await api("POST", `/api/runs/${id}/start`, { body: { message: "hi" } }), 400, "VALIDATION_ERROR");
    fails(
      await step(agent.owner.key, id, "submit", "submit-run", { deliverable: "x", deliverableHash: keccak256("0x02") }),
      400,
      "VALIDATION_ERROR",
    );
    fails(await step(agent.owner.key, 99999999, "start", "start-run"), 404, "RUN_NOT_FOUND");
    assert.deepEqual(await snapshot(), before, "nothing changed");

    // The same signed message works once, then is refused as reused.
    const once = { ...(await signedAction(agent.owner.key, "start-run", "run", id)), consent };
    ok(await api("POST", `/api/runs/${id}/start`, { body: once }));
    fails(await api("POST", `/api/runs/${id}/start`, { body: once }), 401, "INVALID_SIGNATURE");
    assert.equal((await getRun(id)).state, "IN_PROGRESS");

    // Create: the signer must be the poster; the deadline must be ahead; amounts are base-unit strings.
    const signed = await signedAction(intruder.owner.key, "create-run", "run", "new");
    const body = {
      posterAddress: poster.address,
      title: "t",
      description: "d",
      reward: "1000000",
      deadline: new Date(Number((await chainTime()) + 3600n) * 1000).toISOString(),
    };
    fails(await api("POST", "/api/runs", { body: { ...body, ...signed } }), 403, "NOT_RUN_POSTER");
    const posterSigned = () => signedAction(poster.key, "create-run", "run", "new");
    fails(
      await api("POST", "/api/runs", { body: { ...body, reward: "0", ...(await posterSigned()) } }),
      400,
      "VALIDATION_ERROR",
    );
    fails(
      await api("POST", "/api/runs", { body: { ...body, reward: 5, ...(await posterSigned()) } }),
      400,
      "VALIDATION_ERROR",
    );
    fails(
      await api("POST", "/api/runs", {
        body: { ...body, deadline: "2001-01-01T00:00:00Z", ...(await posterSigned()) },
      }),
      400,
      "DEADLINE_PASSED",
    );
    // Funding: only the poster; a second funding is refused.
    fails(await fundWithAuthorization(intruder.owner.key, other), 403, "NOT_RUN_POSTER");
    fails(await fundWithAuthorization(poster.key, other), 409, "RUN_ALREADY_FUNDED");

    // Settle both runs.
    ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: "x" }));
    ok(await step(poster.key, id, "approve", "approve-run"));
    ok(await step(poster.key, other.bountyId, "cancel", "cancel-run"));
  });

  it("a poster cannot claim its own run, and an unfunded poster cannot fund", async () => {
    const agent = await stakedAgent();
    // The agent's owner posts a run and tries to claim it with its own agent.
    await api("POST", "/api/dev/faucet", { body: { address: agent.owner.address, usdc: "50000000" } });
    const run = await openRun(agent.owner);
    fails(await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId), 403, "AGENT_IS_POSTER");
    ok(await step(agent.owner.key, run.bountyId, "cancel", "cancel-run"));
    const broke = await newPoster(0n);
    const draft = ok(await createDraft(broke.key, broke.address), 201).run;
    fails(await fundWithAuthorization(broke.key, draft), 400, "INSUFFICIENT_BALANCE");
    assert.equal((await getRun(draft.bountyId)).state, "DRAFT");
  });
});

describe("runs: escrow invariant under a random sequence", () => {
  it("keeps balance == sum of funded, unpaid runs after every step of a seeded random walk", async () => {
    let seed = 20_260_611;
    const rand = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
      return seed % n;
    };
    const poster = await newPoster();
    const agents = [await stakedAgent(100_000_000n), await stakedAgent(100_000_000n)];
    const runs: number[] = [];
    for (let i = 0; i < 3; i++)
      runs.push((await openRun(poster, { reward: BigInt(1_000_000 + i * 333_333), maxRevisions: 1 })).bountyId);
    const moves = [
      (id: number, a: Agent) => claim(a.owner.key, a.owner.address, id, a.agentId),
      (id: number, a: Agent) => step(a.owner.key, id, "start", "start-run"),
      (id: number, a: Agent) => step(a.owner.key, id, "submit", "submit-run", { deliverable: { id, n: rand(1000) } }),
      (id: number) => step(poster.key, id, "request-revision", "request-revision", { feedback: "more" }),
      (id: number) => step(poster.key, id, "approve", "approve-run"),
      (id: number) => step(poster.key, id, "reject", "reject-run", { reason: "no" }),
      (id: number, a: Agent) => step(a.owner.key, id, "dispute", "dispute-run", { reason: "why" }),
      (id: number) =>
        api("POST", `/api/runs/${id}/resolve`, {
          body: { outcome: rand(2) ? "agent" : "poster" },
          headers: adminHeaders(),
        }),
      (id: number) => step(poster.key, id, "cancel", "cancel-run"),
    ];
    let accepted = 0;
    for (let i = 0; i < 30; i++) {
      const id = runs[rand(runs.length)]!;
      const agent = agents[rand(agents.length)]!;
      const before = await getRun(id);
      const res = await moves[rand(moves.length)]!(id, agent);
      assert.ok(res.status < 500, `step ${i}: ${res.status} ${JSON.stringify(res.body)}`);
      if (res.status === 200) accepted++;
      else assert.equal((await getRun(id)).state, before.state, `step ${i}: a refused step changes nothing`);
      const l = await escrowLedger();
      assert.equal(l.balance, l.owed, `step ${i}: balance == totalOwed`);
      assert.equal(l.held, l.balance, `step ${i}: balance == indexed held runs`);
    }
    assert.ok(accepted >= 5, `the walk made progress (${accepted} accepted steps)`);
    // Settle what is left so later tests start clean.
    for (const id of runs) {
      const r = await getRun(id);
      if (r.state === "OPEN") ok(await step(poster.key, id, "cancel", "cancel-run"));
    }
  });
});

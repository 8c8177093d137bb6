// Escrow exits through the whole stack (issue 23): a submission the poster leaves alone past the review window is
// released and shows as APPROVED (its reward paid to the agent's owner by the payout job), a dispute no one resolves
// within the dispute window ends refunded to the poster (DISPUTE_EXPIRED); the run's history says who did it.
// Balances to the base unit. Nobody asks: the API's run-exits job relays both exits (no transaction from poster or
// agent); before the window a stranger's own call is refused by the chain.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import { type Address, BaseError, ContractFunctionRevertedError, type Hex } from "viem";
import { faucet, stakedAgent, walletFromKey } from "../support/agents.ts";
import { claim, escrowAddress, newPoster, openRun, rewardsPaidOut, step, usdcBalance } from "../support/runs.ts";
import { api, db, increaseTime, newWallet, publicClient, waitUntil } from "../support/stack.ts";

after(() => db.end());

const DAY = 24 * 3600;

function ok(res: { status: number; body: any }, status = 200) {
  assert.equal(res.status, status, JSON.stringify(res.body));
  return res.body;
}

/** A stranger with ETH for gas and no part in any run. */
async function stranger() {
  const w = newWallet();
  await faucet(w.address, 0n, 10n ** 17n);
  return w;
}

/** `functionName(runId)` on the escrow from `key`'s own wallet: the receipt, or the revert's error name. */
async function sendExit(key: Hex, functionName: "releaseAfterReview" | "expireDispute", runId: string) {
  const { account, wallet } = walletFromKey(key);
  try {
    const hash = await wallet.writeContract({
      address: escrowAddress,
      abi: RunEscrowAbi,
      functionName,
      args: [BigInt(runId)],
      account,
      chain: wallet.chain,
    });
    return await publicClient.waitForTransactionReceipt({ hash });
  } catch (error) {
    const revert = error instanceof BaseError ? error.walk((e) => e instanceof ContractFunctionRevertedError) : null;
    return revert instanceof ContractFunctionRevertedError ? revert.data?.errorName : `unexpected: ${error}`;
  }
}

async function indexedState(id: number, state: string) {
  return waitUntil(`run ${id} ${state}`, async () => {
    const run = ok(await api("GET", `/api/runs/${id}`));
    return run.state === state ? run : undefined;
  });
}

async function claimedAndSubmitted(agent: Awaited<ReturnType<typeof stakedAgent>>, id: number) {
  ok(await claim(agent.owner.key, agent.owner.address, id, agent.agentId));
  ok(await step(agent.owner.key, id, "submit", "submit-run", { deliverable: `work for ${id}` }));
}

/** The relayer sent it: an account holding the escrow's RELAYER_ROLE, neither poster nor agent owner. */
async function assertRelayed(actor: Address, ...parties: Address[]) {
  for (const party of parties) assert.notEqual(actor.toLowerCase(), party.toLowerCase(), "not sent by a party");
  const role = await publicClient.readContract({
    address: escrowAddress,
    abi: RunEscrowAbi,
    functionName: "RELAYER_ROLE",
  });
  const relayed = await publicClient.readContract({
    address: escrowAddress,
    abi: RunEscrowAbi,
    functionName: "hasRole",
    args: [role, actor],
  });
  assert.ok(relayed, `${actor} is the relayer`);
}

/** Transactions each address has sent (its nonce): a party that sends none leaves it unchanged. */
const sentBy = (addresses: Address[]) =>
  Promise.all(addresses.map((address) => publicClient.getTransactionCount({ address })));

describe("run exits: a silent poster", () => {
  it("after the review window the run-exits job releases the submission: APPROVED, the owner paid the reward", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const reward = 3_000_001n;
    const run = await openRun(poster, { reward, deadlineIn: 30 * DAY });
    await claimedAndSubmitted(agent, run.bountyId);
    const anyone = await stranger();
    assert.equal(await sendExit(anyone.key, "releaseAfterReview", run.onchainRunId!), "RunEscrowTimeoutNotReached");

    const parties = [poster.address, agent.owner.address];
    const sentBefore = await sentBy(parties);
    const posterBefore = await usdcBalance(poster.address);
    const ownerBefore = await usdcBalance(agent.owner.address);
    await increaseTime(7 * DAY + 60);
    await indexedState(run.bountyId, "APPROVED");
    await rewardsPaidOut(agent.agentId);
    assert.equal(await usdcBalance(agent.owner.address), ownerBefore + reward, "the owner is paid the reward exactly");
    assert.equal(await usdcBalance(poster.address), posterBefore, "the poster pays nothing more");
    assert.deepEqual(await sentBy(parties), sentBefore, "neither poster nor owner sent a transaction");

    const history = ok(await api("GET", `/api/runs/${run.bountyId}/events`)).events;
    const released = history.find((e: any) => e.kind === "RELEASED_AFTER_REVIEW");
    assert.ok(released, JSON.stringify(history));
    await assertRelayed(released.actor, ...parties, anyone.address);
    assert.deepEqual(
      history.slice(-2).map((e: any) => e.kind),
      ["RELEASED_AFTER_REVIEW", "COMPLETED"],
    );
    assert.equal(history.filter((e: any) => e.kind === "COMPLETED").length, 1, "released once");
    const stats = await db.query("select completions from chain.agent_run_stats where agent_id = $1", [agent.agentId]);
    assert.equal(stats.rows[0].completions, 1, "a release counts as the completion it is");
  });
});

describe("run exits: a silent arbiter", () => {
  it("a dispute unresolved after the dispute window is expired by the job: DISPUTE_EXPIRED, reward + fee refunded", async () => {
    const poster = await newPoster();
    const agent = await stakedAgent();
    const run = await openRun(poster, { reward: 2_000_000n, deadlineIn: 30 * DAY });
    await claimedAndSubmitted(agent, run.bountyId);
    ok(await step(agent.owner.key, run.bountyId, "dispute", "dispute-run", { reason: "poster went silent" }));
    await indexedState(run.bountyId, "DISPUTED");
    const anyone = await stranger();
    assert.equal(await sendExit(anyone.key, "expireDispute", run.onchainRunId!), "RunEscrowTimeoutNotReached");

    const parties = [poster.address, agent.owner.address];
    const sentBefore = await sentBy(parties);
    const posterBefore = await usdcBalance(poster.address);
    await increaseTime(14 * DAY + 60);
    const expired = await indexedState(run.bountyId, "DISPUTE_EXPIRED");
    assert.equal(
      await usdcBalance(poster.address),
      posterBefore + BigInt(run.reward) + BigInt(run.fee),
      "reward + fee back to the poster, to the base unit",
    );
    assert.deepEqual(await sentBy(parties), sentBefore, "neither poster nor owner sent a transaction");
    assert.equal(expired.failedAgentId ?? null, null, "no failure recorded");
    const agentView = ok(await api("GET", `/api/agents/${agent.agentId}`));
    assert.notEqual(agentView.status, "FROZEN", "no slash");
    const history = ok(await api("GET", `/api/runs/${run.bountyId}/events`)).events;
    const last = history.at(-1);
    assert.equal(last.kind, "DISPUTE_EXPIRED");
    assert.equal(history.filter((e: any) => e.kind === "DISPUTE_EXPIRED").length, 1, "expired once");
    await assertRelayed(last.actor, ...parties, anyone.address);
  });
});

// The `agenthub` CLI end to end, spawned as a real process against the real stack with real signatures: an agent
// onboarded (register, claim, permit stake, profile update), a whole run lifecycle with a revision, a cancelled
// run, a paid search (x402 USDC and the spec's x-payment) and a governance proposal voted by signature, with
// balances checked to the base unit, and the documented exit codes.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { AgentHubTokenAbi, RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import { AgentHub, isAgentHubError, type Progress } from "@agenthub/sdk";
import { type Address, type Hex, parseEther } from "viem";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { faucet, stakedAgent, walletFromKey } from "../support/agents.ts";
import { agenthub, ok } from "../support/cli.ts";
import { freezeProcessOnPort, startExtraApi } from "../support/processes.ts";
import { claim, escrowAddress, feesAccrued, newPoster, openRun, usdcBalance } from "../support/runs.ts";
import {
  api,
  chain,
  db,
  deployments,
  increaseTime,
  newWallet,
  publicClient,
  stack,
  waitUntil,
} from "../support/stack.ts";

const dir = mkdtempSync(join(tmpdir(), "agenthub-cli-"));
after(async () => {
  rmSync(dir, { recursive: true, force: true });
  await db.end();
});

const treasury = deployments.treasury as Address;
const vault = deployments.contracts.StakeVault.address;
const currentFeeBps = () =>
  publicClient.readContract({ address: escrowAddress, abi: RunEscrowAbi, functionName: "feeBps" });
const stakeOf = (agentId: number) =>
  publicClient.readContract({ address: vault, abi: StakeVaultAbi, functionName: "stakeOf", args: [BigInt(agentId)] });

describe("cli: agent onboarding and a whole run lifecycle", () => {
  const owner = newWallet();
  const poster = newWallet();
  const keystore = join(dir, "poster.json");
  const posterEnv = { AGENTHUB_KEYSTORE: keystore, AGENTHUB_KEYSTORE_PASSWORD: "correct horse battery staple" };
  let agentId: number;
  let agentKey: Hex;
  let agentWallet: Address;

  before(async () => {
    await faucet(poster.address, 100_000_000n);
  });

  it("registers, claims, stakes with a permit and updates an agent", async () => {
    const reg = await ok([
      "agents",
      "register",
      "--name",
      "cli-agent",
      "--capabilities",
      "coding,testing",
      "--langs",
      "python",
    ]);
    assert.equal(typeof reg.agentId, "number");
    assert.match(reg.claimCode, /^[A-Za-z0-9_-]{32}$/);
    agentId = reg.agentId;
    agentWallet = reg.walletAddress;

    const claimed = await ok(["agents", "claim", String(agentId), "--code", reg.claimCode], { key: owner.key });
    assert.equal(claimed.walletAddress, agentWallet);
    assert.match(claimed.privateKey, /^0x[0-9a-f]{64}$/);
    agentKey = claimed.privateKey;
    // The code is spent: a second claim is refused with the API's code and exit code 3.
    const again = await agenthub(["agents", "claim", String(agentId), "--code", reg.claimCode], {
      key: newWallet().key,
    });
    assert.equal(again.code, 3, again.stderr);
    assert.equal(again.json.error.code, "CLAIM_ALREADY_USED");

    await ok(["faucet", agentWallet, "--usdc", "25"]);
    const before = await usdcBalance(agentWallet);
    assert.equal(before, 25_000_000n);
    // The agent's own wallet signs an EIP-2612 permit; the relayer deposits (the wallet holds no ETH).
    const staked = await ok(["agents", "stake", String(agentId), "--amount", "20"], { key: agentKey });
    assert.equal(staked.success ?? true, true);
    assert.equal(await usdcBalance(agentWallet), 5_000_000n);
    assert.equal(await stakeOf(agentId), 20_000_000n);

    const shown = await ok(["agents", "show", String(agentId)]);
    assert.equal(shown.status, "PROVISIONAL");
    assert.equal(shown.stakedAmount, "20000000");

    const updated = await ok(["agents", "update", String(agentId), "--description", "Writes tested Python"], {
      key: owner.key,
    });
    assert.equal(updated.description ?? updated.agent?.description, "Writes tested Python");
    // Only the token's owner may update: a stranger's signature is 403 NOT_AGENT_OWNER, exit code 3.
    const stranger = await agenthub(["agents", "update", String(agentId), "--description", "x"], {
      key: newWallet().key,
    });
    assert.equal(stranger.code, 3);
    assert.equal(stranger.json.error.code, "NOT_AGENT_OWNER");
  });

  it("carries a run from draft to payment (keystore poster, revision, approval) with exact balances", async () => {
    const created = await ok(["keys", "new", keystore, "--light"], {
      env: { AGENTHUB_KEYSTORE_PASSWORD: posterEnv.AGENTHUB_KEYSTORE_PASSWORD },
    });
    const posterAddress = created.address as Address;
    await faucet(posterAddress, 100_000_000n);
    const start = {
      poster: await usdcBalance(posterAddress),
      owner: await usdcBalance(owner.address),
      escrow: await usdcBalance(escrowAddress),
      fees: await feesAccrued(),
    };

    const draft = await ok(
      [
        "runs",
        "create",
        "--title",
        "Add two numbers",
        "--description",
        "Python, with tests",
        "--reward",
        "10",
        "--max-revisions",
        "1",
      ],
      { env: posterEnv },
    );
    assert.equal(draft.run.state, "DRAFT");
    assert.equal(draft.run.posterAddress, posterAddress);
    const runId = String(draft.run.bountyId);
    const funded = await ok(["runs", "fund", runId], { env: posterEnv });
    assert.equal(funded.run.state, "OPEN");
    // The fee is the escrow's rate in force at funding (governance may change it), 5% at deployment.
    const fee = BigInt(funded.run.fee);
    assert.equal(funded.run.reward, "10000000");
    assert.equal(fee, (10_000_000n * (await currentFeeBps()) + 9_999n) / 10_000n);
    assert.equal(await usdcBalance(posterAddress), start.poster - 10_000_000n - fee);
    assert.equal(await usdcBalance(escrowAddress), start.escrow + 10_000_000n + fee);

    const open = await ok(["runs", "list", "--state", "OPEN", "--min-reward", "10", "--limit", "100"]);
    assert.ok(open.runs.some((r: { bountyId: number }) => r.bountyId === Number(runId)));

    assert.equal(
      (await ok(["runs", "claim", runId, "--agent", String(agentId)], { key: owner.key })).run.state,
      "CLAIMED",
    );
    // The agent's wallet signs the requests; the identity token's owner signs the on-chain consents.
    const asWallet = { key: agentKey, env: { AGENTHUB_OWNER_KEY: owner.key } };
    assert.equal((await ok(["runs", "start", runId], asWallet)).run.state, "IN_PROGRESS");
    const first = await ok(["runs", "submit", runId, "--text", "def add(a, b): return a + b"], asWallet);
    assert.equal(first.run.state, "SUBMITTED");
    const revise = await ok(["runs", "revise", runId, "--feedback", "add tests"], { env: posterEnv });
    assert.equal(revise.run.state, "REVISION_REQUESTED");
    const second = await ok(
      [
        "runs",
        "submit",
        runId,
        "--json-body",
        JSON.stringify({ code: "def add(a, b): return a + b", tests: "assert add(1, 2) == 3" }),
      ],
      { key: owner.key },
    );
    assert.equal(second.run.state, "SUBMITTED");
    assert.match(second.run.deliverableHash, /^0x[0-9a-f]{64}$/);
    const approved = await ok(["runs", "approve", runId], { env: posterEnv });
    assert.equal(approved.run.state, "APPROVED");

    // Reward to the agent token's owner; the fee stays accrued in the escrow until swept to the treasury.
    assert.equal(await usdcBalance(owner.address), start.owner + 10_000_000n);
    assert.equal(await feesAccrued(), start.fees + fee);
    assert.equal(await usdcBalance(escrowAddress), start.escrow + fee);
    assert.equal(await usdcBalance(posterAddress), start.poster - 10_000_000n - fee);

    const events = await ok(["runs", "events", runId]);
    assert.deepEqual(
      events.events.map((e: { state: string }) => e.state),
      ["DRAFT", "OPEN", "CLAIMED", "IN_PROGRESS", "SUBMITTED", "REVISION_REQUESTED", "SUBMITTED", "APPROVED"],
    );
    // A step in the wrong state: the API's code, exit code 3, nothing moves.
    const late = await agenthub(["runs", "approve", runId], { env: posterEnv });
    assert.equal(late.code, 3);
    assert.equal(late.json.error.code, "INVALID_RUN_STATE");
    assert.equal(late.json.exitCode, 3);
    assert.equal(await usdcBalance(escrowAddress), start.escrow + fee);
  });

  it("posts a run with a cover (set in the InsurancePool at funding) and cancels it: reward and fee come back", async () => {
    const before = await usdcBalance(poster.address);
    const posted = await ok(
      [
        "runs",
        "create",
        "--title",
        "Never mind",
        "--description",
        "cancel me",
        "--reward",
        "2.5",
        "--deadline",
        "1d",
        "--required-coverage",
        "4",
        "--fund",
      ],
      { key: poster.key },
    );
    assert.equal(posted.run.state, "OPEN");
    assert.equal(posted.run.requiredCoverage, "4000000");
    assert.equal(posted.run.coverPending, false, "fund also signed the cover and the relayer set it");
    assert.equal(await usdcBalance(poster.address), before - 2_500_000n - BigInt(posted.run.fee));
    const cancelled = await ok(["runs", "cancel", String(posted.run.bountyId)], { key: poster.key });
    assert.equal(cancelled.run.state, "CANCELLED");
    assert.equal(await usdcBalance(poster.address), before);
  });

  it("refuses bad usage with exit code 2 before sending anything", async () => {
    const noKey = await agenthub(["runs", "start", "1"]);
    assert.equal(noKey.code, 2);
    assert.match(noKey.json.error.message, /AGENTHUB_PRIVATE_KEY/);
    assert.equal((await agenthub(["runs", "claim", "1"], { key: owner.key })).code, 2, "missing --agent");
    assert.equal(
      (
        await agenthub(["runs", "create", "--title", "t", "--description", "d", "--reward", "1.0000001"], {
          key: owner.key,
        })
      ).code,
      2,
    );
    const wrongPassword = await agenthub(["keys", "address"], {
      env: { AGENTHUB_KEYSTORE: keystore, AGENTHUB_KEYSTORE_PASSWORD: "wrong" },
    });
    assert.equal(wrongPassword.code, 2);
    assert.match(wrongPassword.json.error.message, /wrong password/);
  });
});

describe("cli: paid search", () => {
  it("pays with x402 (USDC settled on chain, to the base unit) and with the spec's x-payment", async () => {
    const payer = newWallet();
    await faucet(payer.address, 1_000_000n);
    const platform = await usdcBalance(treasury);
    const res = await ok(["search", "python", "--capabilities", "coding", "--limit", "5"], { key: payer.key });
    assert.ok(Array.isArray(res.results));
    assert.equal(res.payment.scheme, "x402");
    assert.equal(res.payment.amount, "1000");
    assert.match(res.payment.txHash, /^0x[0-9a-f]{64}$/);
    const receipt = await publicClient.getTransactionReceipt({ hash: res.payment.txHash });
    assert.equal(receipt.status, "success");
    assert.equal(await usdcBalance(payer.address), 1_000_000n - 1_000n);
    assert.equal(await usdcBalance(treasury), platform + 1_000n);

    const spec = await ok(["search", "--capabilities", "coding", "--pay", "x-payment"], { key: payer.key });
    assert.equal(spec.payment.scheme, "x-payment");
    assert.equal(spec.payment.txHash, undefined);
    assert.equal(await usdcBalance(payer.address), 1_000_000n - 1_000n, "x-payment moves nothing on chain");

    // A payer without USDC: the x402 payment is refused (401 INVALID_PAYMENT), exit code 3.
    const broke = await agenthub(["search", "python"], { key: newWallet().key });
    assert.equal(broke.code, 3, broke.stderr);
    assert.equal(broke.json.error.code, "INVALID_PAYMENT");
  });
});

describe("cli: governance", () => {
  // The local deployment gives a development account the community allocation (public test key).
  const deployer = walletFromKey(devAccounts.governanceHolder);
  const token = deployments.contracts.AgentHubToken.address;

  async function holder(amount: bigint) {
    const w = newWallet();
    const give = await deployer.wallet.writeContract({
      address: token,
      abi: AgentHubTokenAbi,
      functionName: "transfer",
      args: [w.address, amount],
      account: deployer.account,
      chain,
    });
    await publicClient.waitForTransactionReceipt({ hash: give });
    await faucet(w.address, 0n, 10n ** 17n);
    const delegate = await w.wallet.writeContract({
      address: token,
      abi: AgentHubTokenAbi,
      functionName: "delegate",
      args: [w.address],
      account: w.account,
      chain,
    });
    await publicClient.waitForTransactionReceipt({ hash: delegate });
    return w;
  }

  it("proposes from the proposer's wallet and votes by signature (gasless), tallies on chain", async () => {
    const proposer = await holder(parseEther("200000"));
    const voter = await holder(parseEther("5000000"));
    await increaseTime(10);
    const recipient = newWallet().address;
    const proposed = await ok(
      [
        "gov",
        "propose",
        "--title",
        "CLI grant",
        "--body",
        "Pay 1 USDC from the treasury.",
        "--transfer-usdc",
        `${recipient}:1`,
      ],
      { key: proposer.key },
    );
    const proposalId = proposed.proposal.id as string;
    assert.equal(proposed.proposal.status, "pending");
    await increaseTime(24 * 3600 + 1);

    const ethBefore = await publicClient.getBalance({ address: voter.address });
    const voted = await ok(["gov", "vote", proposalId, "--support", "for", "--reason", "good use of funds"], {
      key: voter.key,
    });
    assert.equal(voted.voter, voter.address);
    assert.equal(voted.weight, parseEther("5000000").toString());
    assert.equal(await publicClient.getBalance({ address: voter.address }), ethBefore, "the voter paid no gas");

    const shown = await ok(["gov", "show", proposalId]);
    assert.equal(shown.status, "active");
    assert.equal(shown.forVotes, parseEther("5000000").toString());
    // A second vote is refused by the API before anything is relayed.
    const twice = await agenthub(["gov", "vote", proposalId, "--support", "against"], { key: voter.key });
    assert.equal(twice.code, 3);
    assert.equal(twice.json.error.code, "ALREADY_VOTED");
  });
});

describe("cli and sdk: a run step answered pending is followed, never sent again", () => {
  let fast: Awaited<ReturnType<typeof startExtraApi>>;
  before(async () => {
    // An API process that gives up waiting for the indexer after 1 s (the stack's waits 30 s): with the indexer
    // frozen, every run step is on chain and answered 504 INDEXER_LAGGING.
    fast = await startExtraApi({ INDEXER_WAIT_MS: "1000", JOBS_ENABLED: "false" });
  });
  after(() => fast.stop());

  /** Runs `body` with the indexer frozen; it resumes after `resumeAfterMs` (or when body ends). */
  async function withIndexerFrozen<T>(body: () => Promise<T>, resumeAfterMs?: number): Promise<T> {
    const resume = await freezeProcessOnPort(stack.indexerUrl);
    let resumed = false;
    const resumeOnce = () => {
      if (!resumed) resume();
      resumed = true;
    };
    const timer = resumeAfterMs === undefined ? undefined : setTimeout(resumeOnce, resumeAfterMs);
    try {
      return await body();
    } finally {
      clearTimeout(timer);
      resumeOnce();
    }
  }
  const stateOf = async (runId: number) => (await api("GET", `/api/runs/${runId}`)).body.state as string;
  const eventStates = async (runId: number) =>
    (await api("GET", `/api/runs/${runId}/events`)).body.events.map((e: { state: string }) => e.state);

  it("--no-wait exits 5 at once; the SDK gives up after pendingTimeoutMs; by default the CLI follows to the answer", async () => {
    const poster = await newPoster(50_000_000n);
    const agent = await stakedAgent();
    const run = await openRun(poster, { reward: 3_000_000n });
    const runId = run.bountyId;
    assert.equal((await claim(agent.owner.key, agent.owner.address, runId, agent.agentId)).status, 200);

    // 1. CLI --no-wait: the step is on chain, the answer pending: exit 5 at once, the code says why.
    const noWait = await withIndexerFrozen(() =>
      agenthub(["--no-wait", "runs", "start", String(runId)], { key: agent.owner.key, apiUrl: fast.url }),
    );
    assert.equal(noWait.code, 5, noWait.stderr);
    assert.equal(noWait.json.error.code, "INDEXER_LAGGING");
    assert.doesNotMatch(noWait.stderr, /looking again/);
    await waitUntil("the start indexed", async () => (await stateOf(runId)) === "IN_PROGRESS");

    // 2. SDK with pendingTimeoutMs: looks again with "retry" progress, then throws the pending error.
    const progress: Progress[] = [];
    const hub = new AgentHub({
      apiUrl: fast.url,
      rpcUrl: stack.rpcUrl,
      pendingTimeoutMs: 1_500,
      onProgress: (p) => progress.push(p),
    });
    const started = Date.now();
    const gaveUp = await withIndexerFrozen(() =>
      hub.runs.submit(runId, { deliverable: { text: "first" } }, agent.owner.account).catch((e) => e),
    );
    assert.ok(isAgentHubError(gaveUp, "INDEXER_LAGGING"), String(gaveUp));
    assert.ok(Date.now() - started >= 1_000 + 1_500, "the API's 1 s wait, then the SDK's 1.5 s");
    const retries = progress.filter((p) => p.stage === "retry");
    assert.ok(retries.length >= 3, JSON.stringify(retries));
    assert.match(retries[0]!.message, /INDEXER_LAGGING; looking again/);
    assert.match(retries.at(-1)!.message, /giving up/);
    await waitUntil("the submission indexed", async () => (await stateOf(runId)) === "SUBMITTED");

    // 3. CLI default --wait: the indexer resumes 3 s into the approval; the CLI follows and answers it (exit 0).
    const owner = await usdcBalance(agent.owner.address);
    const followed = await withIndexerFrozen(
      () => agenthub(["runs", "approve", String(runId)], { key: poster.key, apiUrl: fast.url }),
      3_000,
    );
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.json.run.state, "APPROVED");
    assert.match(followed.json.message, /confirmed after a pending answer/);
    assert.match(followed.stderr, /run \d+ -> APPROVED: INDEXER_LAGGING; looking again/);
    const events = (await api("GET", `/api/runs/${runId}/events`)).body.events;
    assert.equal(followed.json.txHash, events.at(-1).txHash);
    // Each step happened exactly once; the reward moved once.
    assert.deepEqual(await eventStates(runId), ["DRAFT", "OPEN", "CLAIMED", "IN_PROGRESS", "SUBMITTED", "APPROVED"]);
    assert.equal(await usdcBalance(agent.owner.address), owner + 3_000_000n);
  });
});

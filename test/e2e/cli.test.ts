// The `agenthub` CLI end to end, spawned as a real process against the real stack with real signatures: an agent
// onboarded (register, claim, permit stake, profile update), a whole run lifecycle with a revision, a cancelled
// run, a rejected and a disputed run, a paid search (x402 USDC and the spec's x-payment), a paid attestation, a
// governance proposal voted by signature, an organization with a webhook whose delivery the CLI verifies, its agents
// as a human table, a subscription paused, resumed and cancelled, a key typed at a hidden prompt on a real
// pseudo-terminal, and run steps answered pending (followed, never re-sent). Balances are checked to the base unit,
// and the documented exit codes.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { AgentHubTokenAbi, RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import { AgentHub, isAgentHubError, type Progress } from "@agenthub/sdk";
import { type Address, type Hex, parseEther } from "viem";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { claimAgent, faucet, registerAgent, stakedAgent, walletFromKey } from "../support/agents.ts";
import { agenthub, cliBundle, ok } from "../support/cli.ts";
import { freezeProcessOnPort, startExtraApi } from "../support/processes.ts";
import {
  claim,
  escrowAddress,
  escrowRun,
  feesAccrued,
  newPoster,
  openRun,
  rewardsPaidOut,
  step,
  usdcBalance,
} from "../support/runs.ts";
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

    // --save-keystore never overwrites a file, and refuses before the claim spends the code.
    const existing = join(dir, "existing.json");
    writeFileSync(existing, "do not overwrite");
    const refused = await agenthub(
      ["agents", "claim", String(agentId), "--code", reg.claimCode, "--save-keystore", existing],
      { key: owner.key },
    );
    assert.equal(refused.code, 2, refused.stderr);
    assert.match(refused.stderr + JSON.stringify(refused.json ?? {}), /never overwrites/);
    assert.equal(readFileSync(existing, "utf8"), "do not overwrite");
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

    // Reward to the agent token's owner (the next payout); the fee stays accrued in the escrow until swept.
    await rewardsPaidOut(agentId);
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
    assert.equal(
      posted.run.coverPending,
      false,
      "the funding authorization carried the cover: fixed on chain at funding",
    );
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

/** Claims run `id` for `agent`, starts and submits it (over HTTP, as the agent's owner): ready for the poster. */
async function claimedAndSubmitted(agent: Awaited<ReturnType<typeof stakedAgent>>, id: number) {
  for (const res of [
    await claim(agent.owner.key, agent.owner.address, id, agent.agentId),
    await step(agent.owner.key, id, "start", "start-run"),
    await step(agent.owner.key, id, "submit", "submit-run", { deliverable: { answer: "a + b" } }),
  ]) {
    assert.equal(res.status, 200, JSON.stringify(res.body));
  }
}

describe("cli: run endings other than approval", () => {
  it("rejects after the revisions (refund to the base unit) and disputes (nothing moves); refusals exit 3", async () => {
    const poster = await newPoster(50_000_000n);
    const agent = await stakedAgent();
    const stranger = newWallet();
    const asPoster = { key: poster.key };
    const asAgent = { key: agent.owner.key };

    // Reject: only once the one revision is used; then reward + fee go back to the poster.
    const rejected = await openRun(poster, { reward: 4_000_000n, maxRevisions: 1 });
    const rejectedId = String(rejected.bountyId);
    const posterFunded = await usdcBalance(poster.address);
    const escrowFunded = await usdcBalance(escrowAddress);
    await claimedAndSubmitted(agent, rejected.bountyId);
    const early = await agenthub(["runs", "reject", rejectedId, "--reason", "too early"], asPoster);
    assert.equal(early.code, 3, early.stderr);
    assert.equal(early.json.error.code, "REVISIONS_REMAINING");
    assert.equal(
      (await step(poster.key, rejected.bountyId, "request-revision", "request-revision", { feedback: "again" })).status,
      200,
    );
    assert.equal(
      (await step(agent.owner.key, rejected.bountyId, "submit", "submit-run", { deliverable: "v2" })).status,
      200,
    );
    const done = await ok(["runs", "reject", rejectedId, "--reason", "still wrong"], asPoster);
    assert.equal(done.run.state, "REJECTED");
    assert.equal(done.run.failedAgentId, agent.agentId);
    const refund = BigInt(rejected.reward) + BigInt(rejected.fee);
    assert.equal(await usdcBalance(poster.address), posterFunded + refund);
    assert.equal(await usdcBalance(escrowAddress), escrowFunded - refund);
    // Terminal: the agent's dispute is refused.
    const late = await agenthub(["runs", "dispute", rejectedId, "--reason", "unfair"], asAgent);
    assert.equal(late.code, 3);
    assert.equal(late.json.error.code, "INVALID_RUN_STATE");

    // Dispute: only a party; the agent's dispute holds the money in escrow for the operator.
    const disputed = await openRun(poster, { reward: 2_000_000n });
    const disputedId = String(disputed.bountyId);
    await claimedAndSubmitted(agent, disputed.bountyId);
    const before = {
      poster: await usdcBalance(poster.address),
      owner: await usdcBalance(agent.owner.address),
      escrow: await usdcBalance(escrowAddress),
    };
    const outsider = await agenthub(["runs", "dispute", disputedId, "--reason", "me too"], { key: stranger.key });
    assert.equal(outsider.code, 3);
    assert.equal(outsider.json.error.code, "NOT_RUN_PARTY");
    const opened = await ok(["runs", "dispute", disputedId, "--reason", "poster went silent"], asAgent);
    assert.equal(opened.run.state, "DISPUTED");
    assert.deepEqual(
      {
        poster: await usdcBalance(poster.address),
        owner: await usdcBalance(agent.owner.address),
        escrow: await usdcBalance(escrowAddress),
      },
      before,
    );
    const held = await escrowRun(disputed.onchainRunId!);
    assert.equal(held.reward + held.fee, BigInt(disputed.reward) + BigInt(disputed.fee));
  });
});

describe("cli: attest (x402)", () => {
  it("the attestor's owner pays USDC on chain; a refused second attestation costs nothing", async () => {
    const attestor = await registerAgent();
    const { owner } = await claimAgent(attestor.agentId, attestor.claimCode);
    const subject = await registerAgent();
    await claimAgent(subject.agentId, subject.claimCode);
    await faucet(owner.address, 1_000_000n);
    const { platformRecipient, prices } = (await api("GET", "/api/config")).body;
    const price = BigInt(prices["/api/attestations/create"].usdc);
    assert.equal(price, 5_000n);
    const platform = await usdcBalance(platformRecipient);
    const args = [
      "attest",
      "--attestor",
      String(attestor.agentId),
      "--subject",
      String(subject.agentId),
      "--category",
      "reliability",
      "--rating",
      "5",
      "--comment",
      "delivered on time",
    ];
    const made = await ok(args, { key: owner.key });
    assert.equal(made.payment.scheme, "x402");
    assert.equal(made.payment.payer, owner.address);
    assert.equal(made.payment.amount, "5000");
    assert.equal((await publicClient.getTransactionReceipt({ hash: made.payment.txHash })).status, "success");
    const stored = (await api("GET", `/api/attestations/agent/${subject.agentId}`)).body;
    assert.ok(JSON.stringify(stored).includes('"delivered on time"'), JSON.stringify(stored));
    assert.equal(await usdcBalance(owner.address), 1_000_000n - price);
    assert.equal(await usdcBalance(platformRecipient), platform + price);

    const again = await agenthub(args, { key: owner.key });
    assert.equal(again.code, 3, again.stderr);
    assert.equal(again.json.error.code, "ATTESTATION_EXISTS");
    assert.equal(await usdcBalance(owner.address), 1_000_000n - price, "a refused attestation is not settled");
    assert.equal(await usdcBalance(platformRecipient), platform + price);
  });
});

describe("cli: organizations, webhooks and their agents", () => {
  const received: { body: string; headers: Record<string, string | string[] | undefined> }[] = [];
  const receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      received.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
      res.writeHead(200).end("ok");
    });
  });
  before(() => new Promise<void>((r) => receiver.listen(0, "127.0.0.1", r)));
  after(() => new Promise<void>((r) => receiver.close(() => r())));

  it("creates an org, adds a webhook, registers and lists its agent (human table), verifies a delivery", async () => {
    const uniq = Math.random().toString(36).slice(2, 10);
    const org = await ok(
      ["orgs", "create", "--name", `CLI ${uniq}`, "--subdomain", `cli-${uniq}`, "--email", `ops-${uniq}@example.com`],
      { env: { AGENTHUB_ADMIN_TOKEN: stack.secrets.adminToken } },
    );
    assert.match(org.id, /^org_/);
    const orgEnv = { AGENTHUB_API_KEY: org.apiKey, AGENTHUB_API_SECRET: org.apiSecret };
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
    const hook = await ok(["orgs", "webhooks", "add", org.id, "--url", url, "--events", "agent.registered"], {
      env: orgEnv,
    });
    assert.match(hook.secret, /^whsec_/);
    // Without the admin token or the org's credentials: refused.
    const anonymous = await agenthub([
      "orgs",
      "create",
      "--name",
      "x",
      "--subdomain",
      `x-${uniq}`,
      "--email",
      "x@example.com",
    ]);
    assert.equal(anonymous.code, 3);
    assert.equal(anonymous.json.error.code, "ADMIN_AUTH_REQUIRED");

    const agent = await ok(["agents", "register", "--name", `Org agent ${uniq}`, "--capabilities", "coding,testing"], {
      env: orgEnv,
    });
    // Human output: a table with a header row, one row per agent of the organization.
    const listed = await agenthub(["agents", "list"], { env: orgEnv, human: true });
    assert.equal(listed.code, 0, listed.stderr);
    const [head, ...rows] = listed.stdout.trimEnd().split("\n");
    assert.match(head!, /^ID\s+WALLET\s+CLAIMED\s+CAPABILITIES\s+REGISTERED$/);
    assert.equal(rows.length, 1, "the organization's key lists its own agents only");
    assert.match(
      rows[0]!,
      new RegExp(`^${agent.agentId}\\s+${agent.walletAddress}\\s+false\\s+coding,testing\\s+\\d{4}-\\d\\d-\\d\\d`, "i"),
    );

    const delivery = await waitUntil("the agent.registered delivery", async () =>
      received.find((r) => JSON.parse(r.body).data?.agentId === agent.agentId),
    );
    const bodyFile = join(dir, "delivery.json");
    const headersFile = join(dir, "delivery-headers.json");
    writeFileSync(headersFile, JSON.stringify(delivery.headers));
    writeFileSync(bodyFile, delivery.body);
    const verify = [
      "orgs",
      "webhooks",
      "verify",
      "--secret",
      hook.secret,
      "--body",
      bodyFile,
      "--headers",
      headersFile,
    ];
    const genuine = await ok(verify);
    assert.equal(genuine.event, "agent.registered");
    assert.equal(genuine.organization, org.id);
    assert.equal(genuine.data.agentId, agent.agentId);
    // The same headers over another body: forged, exit 3.
    writeFileSync(bodyFile, delivery.body.replace(`Org agent ${uniq}`, "Evil agent"));
    const forged = await agenthub(verify);
    assert.equal(forged.code, 3, forged.stderr);
    assert.equal(forged.json.error.code, "WEBHOOK_INVALID");
  });
});

describe("cli: subscriptions", () => {
  it("creates (prepaid by permit), pauses, resumes and cancels with the unspent balance refunded", async () => {
    const subscriber = newWallet();
    await faucet(subscriber.address, 10_000_000n);
    const as = { key: subscriber.key };
    const created = await ok(["subs", "create", "Post a market summary daily for 3 days", "--reward", "1"], as);
    const sub = created.subscription;
    const id = String(sub.id);
    const perRun = 1_000_000n + (1_000_000n * (await currentFeeBps()) + 9_999n) / 10_000n;
    const prepaid = perRun * 3n;
    assert.equal(sub.status, "ACTIVE");
    assert.equal(await usdcBalance(subscriber.address), 10_000_000n - prepaid);

    const stranger = await agenthub(["subs", "pause", id], { key: newWallet().key });
    assert.equal(stranger.code, 3);
    assert.equal(stranger.json.error.code, "NOT_SUBSCRIPTION_POSTER");
    assert.equal((await ok(["subs", "pause", id], as)).subscription.status, "PAUSED");
    const twice = await agenthub(["subs", "pause", id], as);
    assert.equal(twice.code, 3);
    assert.equal(twice.json.error.code, "INVALID_SUBSCRIPTION_STATE");
    assert.equal((await ok(["subs", "resume", id], as)).subscription.status, "ACTIVE");
    const cancelled = await ok(["subs", "cancel", id], as);
    assert.equal(cancelled.subscription.status, "CANCELLED");
    // Whatever runs the scheduler created took one prepaid run each; the rest came back on chain.
    const { runs } = (await api("GET", `/api/subscriptions/${id}/runs?limit=100`)).body;
    assert.equal(BigInt(cancelled.refunded), prepaid - perRun * BigInt(runs.length));
    assert.equal(cancelled.subscription.balanceRemaining, "0");
    assert.equal(await usdcBalance(subscriber.address), 10_000_000n - prepaid + BigInt(cancelled.refunded));
  });
});

describe("cli: --prompt-key on a terminal", () => {
  /** Runs `command` on a pseudo-terminal (util-linux `script`), typing `input` once `prompt` shows; the terminal's output. */
  function onTerminal(command: string[], prompt: string, input: string) {
    const quoted = command.map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(" ");
    const child = spawn("script", ["-q", "-e", "-c", quoted, "/dev/null"], {
      env: { PATH: process.env.PATH ?? "", HOME: process.env.HOME ?? "/tmp", TERM: "dumb" },
    });
    let out = "";
    let typed = false;
    child.stdout.on("data", (d) => {
      out += d;
      if (!typed && out.includes(prompt)) {
        typed = true;
        child.stdin.write(`${input}\r`);
      }
    });
    child.stderr.on("data", (d) => (out += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    return new Promise<{ code: number | null; out: string }>((resolve, reject) => {
      child.on("error", reject);
      child.on("close", (code) => {
        clearTimeout(timer);
        resolve({ code, out });
      });
    });
  }

  it("reads the key without echoing it (a terminal echoes a plain line read)", async () => {
    const key = `0x${"5a".repeat(32)}` as Hex;
    const address = walletFromKey(key).account.address;
    const hidden = await onTerminal(
      [process.execPath, await cliBundle(), "--api", stack.apiUrl, "keys", "address", "--prompt-key"],
      "Private key (hidden): ",
      key,
    );
    assert.equal(hidden.code, 0, hidden.out);
    assert.match(hidden.out, new RegExp(address));
    assert.ok(!hidden.out.toLowerCase().includes("5a5a5a5a"), `the key was echoed: ${hidden.out}`);
    // Control: the same terminal echoes what a program reads without hiding it, so the check above can fail.
    const echoed = await onTerminal(
      [process.execPath, "-e", 'process.stdout.write("Say: "); process.stdin.once("data", () => process.exit(0))'],
      "Say: ",
      key,
    );
    assert.ok(echoed.out.includes(key), echoed.out);
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

  /** Runs `body` with the indexer frozen until body calls `resume` or ends. */
  async function withIndexerFrozen<T>(body: (resume: () => void) => Promise<T>): Promise<T> {
    const resume = await freezeProcessOnPort(stack.indexerUrl);
    let resumed = false;
    const resumeOnce = () => {
      if (!resumed) resume();
      resumed = true;
    };
    try {
      return await body(resumeOnce);
    } finally {
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

    // 3. CLI default --wait: the indexer resumes once the CLI reports it is following; it answers (exit 0).
    const owner = await usdcBalance(agent.owner.address);
    const followed = await withIndexerFrozen((resume) =>
      agenthub(["runs", "approve", String(runId)], {
        key: poster.key,
        apiUrl: fast.url,
        onStderr: (text) => /looking again/.test(text) && resume(),
      }),
    );
    assert.equal(followed.code, 0, followed.stderr);
    assert.equal(followed.json.run.state, "APPROVED");
    assert.match(followed.json.message, /confirmed after a pending answer/);
    assert.match(followed.stderr, /run \d+ -> APPROVED: INDEXER_LAGGING; looking again/);
    const events = (await api("GET", `/api/runs/${runId}/events`)).body.events;
    assert.equal(followed.json.txHash, events.at(-1).txHash);
    // Each step happened exactly once; the reward moved once.
    assert.deepEqual(await eventStates(runId), ["DRAFT", "OPEN", "CLAIMED", "IN_PROGRESS", "SUBMITTED", "APPROVED"]);
    await rewardsPaidOut(agent.agentId);
    assert.equal(await usdcBalance(agent.owner.address), owner + 3_000_000n);
  });
});

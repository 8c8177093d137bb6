// The SDK can never drift from the server: its generated document and types (sdk/src/generated, made by
// `pnpm run compile` from createApp) equal what the running API serves at /openapi.json, its error codes are the
// API's catalogue; and the SDK itself drives the stack (typed answers, typed errors carrying the API's codes):
// organizations (keys, member roles, webhooks), verifications, attestations, the leaderboard, subscriptions and
// insurance with balances to the base unit, a poster's own createRun funding, and a viem wallet client on a JSON-RPC
// account as the signer.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ERRORS } from "@agenthub/api/errors";
import { AgentHub, AgentHubError, isAgentHubError } from "@agenthub/sdk";
import { type Address, createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../scripts/lib/chain.ts";
import { sdkTypesFor } from "../../scripts/lib/openapi-types.ts";
import { faucet } from "../support/agents.ts";
import { usdcBalance } from "../support/runs.ts";
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

const generated = join(new URL("../..", import.meta.url).pathname, "sdk", "src", "generated");

describe("sdk: generated types against the served /openapi.json", () => {
  it("the generated document is exactly what the API serves, and the types are generated from it", async () => {
    const served = await api("GET", "/openapi.json");
    assert.equal(served.status, 200);
    const committed = JSON.parse(readFileSync(join(generated, "openapi.json"), "utf8"));
    assert.deepEqual(committed, served.body, "run `pnpm run compile`: the SDK's document differs from the API's");
    assert.equal(
      readFileSync(join(generated, "openapi.ts"), "utf8"),
      await sdkTypesFor(served.body),
      "run `pnpm run compile`: the SDK's types differ from the API's document",
    );
  });

  it("types every code of the API's error catalogue, and only those (KnownErrorCode)", async () => {
    const catalogue = Object.keys(ERRORS);
    assert.ok(catalogue.length > 100);
    const served = await api("GET", "/openapi.json");
    assert.deepEqual(served.body.components.schemas.ErrorCode.enum, catalogue);
    assert.deepEqual(served.body.components.schemas.Error.properties.error.properties.code, {
      $ref: "#/components/schemas/ErrorCode",
    });
    // The SDK's ApiErrorCode (sdk/src/errors.ts) is this generated union.
    const union = readFileSync(join(generated, "openapi.ts"), "utf8").match(
      /^\s*ErrorCode: ((?:"[A-Z0-9_]+"(?: \| )?)+);$/m,
    );
    assert.ok(union, "the generated types declare the ErrorCode union");
    assert.deepEqual(
      union[1]!.split(" | ").map((c) => JSON.parse(c)),
      catalogue,
      "run `pnpm run compile`: the SDK's error codes differ from the API's catalogue",
    );
    for (const code of ["MEMBER_EXISTS", "NOT_PROPOSER", "INVALID_CONSENT", "WITHDRAWAL_NOT_READY"]) {
      assert.ok(catalogue.includes(code), code);
    }
  });
});

describe("sdk: typed client against the stack", () => {
  const hub = new AgentHub({ apiUrl: stack.apiUrl, rpcUrl: stack.rpcUrl, headers: { "x-forwarded-for": freshIp() } });

  it("reads the deployment and its prices", async () => {
    const config = await hub.config();
    assert.equal(config.chainId, 84532);
    assert.equal(config.prices["/api/intelligence/search"]?.usdc, "1000");
    assert.equal(config.prices["/api/attestations/create"]?.spec, "5000000000000000");
  });

  it("throws AgentHubError with the API's code and status", async () => {
    const missing = await hub.agents.get(999_999_999).catch((e) => e);
    assert.ok(missing instanceof AgentHubError);
    assert.equal(missing.code, "AGENT_NOT_FOUND");
    assert.equal(missing.status, 404);
    assert.equal(missing.retryable, false);
    const { agentId, claimCode } = await hub.agents.register({ name: "sdk-agent", capabilities: ["coding"] });
    assert.match(claimCode, /^[A-Za-z0-9_-]{32}$/);
    const forged = await hub.agents
      .claim(agentId, { claimCode: "A".repeat(32), signer: newWallet().account })
      .catch((e) => e);
    assert.ok(isAgentHubError(forged, "CLAIM_CODE_INVALID"), String(forged));
  });
});

/** A client as one distinct caller (its own X-Forwarded-For), with extra options (keys, tokens). */
const client = (options: Partial<ConstructorParameters<typeof AgentHub>[0]> = {}) =>
  new AgentHub({ apiUrl: stack.apiUrl, rpcUrl: stack.rpcUrl, headers: { "x-forwarded-for": freshIp() }, ...options });

/** Registers an agent through `hub` and claims it to a fresh owner; the owner and the agent's generated wallet. */
async function claimedAgent(hub: AgentHub, name: string) {
  const owner = newWallet();
  const reg = await hub.agents.register({ name, capabilities: ["coding"] });
  const claimed = await hub.agents.claim(reg.agentId, { claimCode: reg.claimCode, signer: owner.account });
  return { agentId: reg.agentId, owner, wallet: privateKeyToAccount(claimed.privateKey as Hex) };
}

describe("sdk: organizations, verifications, attestations and the leaderboard", () => {
  it("an org's keys and members, two of its agents, a stake badge and an attestation rank them", async () => {
    const admin = client({ adminToken: stack.secrets.adminToken });
    const uniq = Math.random().toString(36).slice(2, 10);
    const created = await admin.organizations.create({ name: `SDK ${uniq}`, subdomain: `sdk-${uniq}` });
    assert.ok("apiKey" in created, JSON.stringify(created));
    const org = client({ apiKey: created.apiKey, apiSecret: created.apiSecret });
    assert.equal((await org.organizations.get(created.id)).subdomain, `sdk-${uniq}`);

    // Members: each gets a key acting with its role; a viewer reads but may not add; duplicates are typed errors.
    const viewer = await org.organizations.addMember(created.id, {
      email: `viewer-${uniq}@example.com`,
      role: "viewer",
    });
    const twice = await org.organizations
      .addMember(created.id, { email: `viewer-${uniq}@example.com`, role: "admin" })
      .catch((e) => e);
    assert.ok(isAgentHubError(twice, "MEMBER_EXISTS"), String(twice));
    const asViewer = client({ apiKey: viewer.apiKey });
    assert.deepEqual(
      (await asViewer.organizations.members(created.id)).members.map((m) => m.email),
      [`viewer-${uniq}@example.com`],
    );
    const refused = await asViewer.organizations
      .addMember(created.id, { email: `x-${uniq}@example.com`, role: "viewer" })
      .catch((e) => e);
    assert.ok(isAgentHubError(refused, "FORBIDDEN_ROLE"), String(refused));
    assert.equal(refused.status, 403);

    // Webhooks: the secret is answered once, listed without it, removed.
    const hook = await org.organizations.createWebhook(created.id, {
      url: "http://127.0.0.1:9/hooks",
      events: ["agent.registered"],
    });
    assert.match(hook.secret, /^whsec_/);
    const listed = (await org.organizations.webhooks(created.id)).webhooks;
    assert.deepEqual(
      listed.map((w) => w.id),
      [hook.id],
    );
    assert.ok(!JSON.stringify(listed).includes(hook.secret), "the secret is not listed");
    await org.organizations.deleteWebhook(created.id, hook.id);
    assert.deepEqual((await org.organizations.webhooks(created.id)).webhooks, []);

    // Two agents registered with the org's key.
    const a = await claimedAgent(org, `Alpha ${uniq}`);
    const b = await claimedAgent(org, `Beta ${uniq}`);
    assert.equal((await org.organizations.stats(created.id)).agents.total, 2);

    // Verification: a's wallet stakes 100 USDC by permit; the stake verification reads the vault: stake-100.
    const hub = client();
    await faucet(a.wallet.address, 100_000_000n);
    await hub.agents.stakeWithPermit(a.agentId, { amount: 100_000_000n, signer: a.wallet });
    const requested = await hub.verifications.requestStake(a.agentId, 100_000_000n);
    assert.equal(requested.verification.status, "PENDING");
    const verified = await hub.verifications.verifyStake(requested.verification.id);
    assert.equal(verified.verification.status, "VERIFIED");
    assert.equal(verified.verification.badge, "stake-100");
    assert.equal((await hub.verifications.get(requested.verification.id)).verification.actualBalance, "100000000");
    assert.deepEqual(
      (await hub.verifications.forAgent(a.agentId)).verifications.map((v) => v.badge),
      ["stake-100"],
    );
    const wrong = await hub.verifications.verify(requested.verification.id).catch((e) => e);
    assert.ok(isAgentHubError(wrong, "WRONG_VERIFICATION_TYPE"), String(wrong));

    // Attestation: b's owner pays with the spec's x-payment (nothing moves on chain) and rates a.
    const attested = await hub.attestations.create(
      { attestorId: b.agentId, subjectId: a.agentId, category: "quality", rating: 5, comment: "solid" },
      { signer: b.owner.account, scheme: "x-payment" },
    );
    assert.equal(attested.payment.scheme, "x-payment");
    assert.equal(attested.payment.payer, b.owner.address);
    assert.equal(await usdcBalance(b.owner.address), 0n);
    const stored = await hub.attestations.get(attested.attestation.id);
    assert.equal(stored.attestation.subjectId, a.agentId);
    assert.equal(stored.attestation.rating, 5);
    assert.deepEqual(
      (await hub.attestations.forAgent(a.agentId)).received.map((x) => x.id),
      [attested.attestation.id],
    );
    assert.equal((await hub.attestations.stats(a.agentId)).count, 1);
    const self = await hub.attestations
      .create(
        { attestorId: a.agentId, subjectId: a.agentId, category: "quality", rating: 5 },
        { signer: a.owner.account, scheme: "x-payment" },
      )
      .catch((e) => e);
    assert.ok(isAgentHubError(self, "SELF_ATTESTATION"), String(self));

    // The leaderboard with the org's key: exactly its two agents, a first (badge + attestation), ranked by score.
    const scoreOf = async (id: number) => (await hub.reputation.get(id)).score;
    await waitUntil("a's score reflects the badge and the attestation", async () => {
      const [sa, sb] = await Promise.all([scoreOf(a.agentId), scoreOf(b.agentId)]);
      return sa > sb;
    });
    const board = await org.reputation.leaderboard({ limit: 10 });
    assert.equal(board.sortBy, "score");
    assert.deepEqual(
      board.leaderboard.map((r) => [r.rank, r.agentId]),
      [
        [1, a.agentId],
        [2, b.agentId],
      ],
    );
    assert.equal(board.leaderboard[0]!.score, await scoreOf(a.agentId));
    const badSort = await hub.reputation.leaderboard({ sortBy: "luck" }).catch((e) => e);
    assert.ok(isAgentHubError(badSort, "INVALID_SORT_BY"), String(badSort));
  });
});

describe("sdk: subscriptions", () => {
  it("previews, creates by permit, tops up, pauses, resumes and cancels: every base unit accounted for", async () => {
    const hub = client();
    const subscriber = newWallet();
    await faucet(subscriber.address, 20_000_000n);
    const instructions = "Check the status page daily for 4 days";
    const preview = await hub.subscriptions.preview(instructions, 1_000_000n, subscriber.address);
    assert.equal(preview.detected.totalRuns, 4);
    const perRun = BigInt(preview.costs.totalPerRun);
    assert.equal(BigInt(preview.costs.total!), perRun * 4n);

    const created = await hub.subscriptions.create(
      { instructions, rewardPerRun: 1_000_000n, amount: perRun * 2n },
      subscriber.account,
    );
    const id = created.subscription.id;
    assert.equal(created.subscription.totalFunded, (perRun * 2n).toString());
    await hub.subscriptions.topUp(id, { amount: perRun }, subscriber.account);
    assert.equal(await usdcBalance(subscriber.address), 20_000_000n - perRun * 3n);
    assert.ok(
      (await hub.subscriptions.list({ posterAddress: subscriber.address })).subscriptions.some((s) => s.id === id),
    );
    assert.equal((await hub.subscriptions.pause(id, subscriber.account)).subscription.status, "PAUSED");
    const stranger = await hub.subscriptions.resume(id, newWallet().account).catch((e) => e);
    assert.ok(isAgentHubError(stranger, "NOT_SUBSCRIPTION_POSTER"), String(stranger));
    assert.equal((await hub.subscriptions.resume(id, subscriber.account)).subscription.status, "ACTIVE");
    const cancelled = await hub.subscriptions.cancel(id, subscriber.account);
    assert.equal(cancelled.subscription.status, "CANCELLED");
    // A slot the scheduler reserved before the cancel is either created on chain or released; count once settled.
    const runs = await waitUntil("every reserved slot created or released", async () => {
      const { runs } = await hub.subscriptions.runs(id, { limit: 100 });
      return runs.every((r) => r.status === "CREATED") ? runs : undefined;
    });
    const refunded = BigInt(cancelled.refunded ?? "-1");
    assert.equal(refunded, perRun * 3n - perRun * BigInt(runs.length));
    assert.equal(
      await usdcBalance(subscriber.address),
      20_000_000n - perRun * 3n + refunded,
      "the unspent balance is back on chain",
    );
    assert.equal((await hub.subscriptions.get(id)).status, "CANCELLED");
  });
});

describe("sdk: signers are viem wallet clients too (a JSON-RPC account: the node signs, no key in the process)", () => {
  it("claims (EIP-191), updates a profile (EIP-4361) and pays for a search (x402, EIP-712) with the node's account", async () => {
    const accounts = await createWalletClient({ chain, transport: http(stack.rpcUrl) }).getAddresses();
    // The node's last development account: unused by the stack (the deployer, relayer, arbiter, holders come first).
    const address = accounts.at(-1)!;
    const known = [
      devAccounts.deployer,
      devAccounts.relayer,
      devAccounts.arbiter,
      devAccounts.governanceHolder,
      ...devAccounts.safeOwners,
    ].map((k) => privateKeyToAccount(k).address);
    assert.ok(!known.includes(address), `${address} is one of the stack's accounts`);
    const wallet = createWalletClient({ account: address, chain, transport: http(stack.rpcUrl) });
    assert.equal(wallet.account.type, "json-rpc");

    const hub = client();
    const reg = await hub.agents.register({ name: "JSON-RPC owned", capabilities: ["coding"] });
    const claimed = await hub.agents.claim(reg.agentId, { claimCode: reg.claimCode, signer: wallet });
    assert.equal(claimed.ownerAddress ?? (await hub.agents.get(reg.agentId)).ownerAddress, address);
    const updated = await hub.agents.update(reg.agentId, { description: "signed by the node" }, wallet);
    assert.equal((await hub.agents.get(reg.agentId)).description, "signed by the node");
    assert.ok(updated);

    const before = await usdcBalance(address);
    await faucet(address, 10_000n);
    const platform = await usdcBalance(deployments.treasury as Address);
    const res = await hub.search({ query: "JSON-RPC owned", limit: 5 }, { signer: wallet });
    assert.equal(res.payment.payer, address);
    assert.equal((await publicClient.getTransactionReceipt({ hash: res.payment.txHash! })).status, "success");
    assert.equal(await usdcBalance(address), before + 10_000n - 1_000n);
    assert.equal(await usdcBalance(deployments.treasury as Address), platform + 1_000n);
  });
});

describe("sdk: a poster funds its draft with its own transactions", () => {
  it("approves and sends createRun from its wallet (the caller is the run's poster); the API records it OPEN", async () => {
    const hub = client();
    const poster = newWallet();
    await faucet(poster.address, 20_000_000n, 10n ** 17n);
    const reward = 2_000_000n;
    const draft = await hub.runs.create(
      { title: "Own-wallet funding", description: "funded by createRun", reward, deadline: { inSeconds: 86_400 } },
      poster.account,
    );
    const fee = BigInt(draft.run.fee);
    const funded = await hub.runs.fund(draft.run.bountyId, poster.account, { wallet: poster.wallet });
    assert.equal(funded.run.state, "OPEN");
    const tx = await publicClient.getTransaction({ hash: funded.txHash as Hex });
    assert.equal(tx.from.toLowerCase(), poster.address.toLowerCase(), "sent by the poster itself");
    assert.equal(await usdcBalance(poster.address), 20_000_000n - reward - fee, "reward + fee, to the base unit");
  });
});

describe("sdk: insurance", () => {
  // Last in this file: completing a withdrawal moves chain time past the 14-day cooldown.
  it("covers an agent by permit, withdraws in two signed phases (early completion is a typed refusal)", async () => {
    const hub = client();
    const agent = await claimedAgent(hub, "Insured");
    await faucet(agent.wallet.address, 30_000_000n);
    const staked = await hub.insurance.stakeWithPermit(agent.agentId, { amount: 30_000_000n, signer: agent.wallet });
    assert.equal(staked.stake.coverage, "30000000");
    assert.equal(await usdcBalance(agent.wallet.address), 0n);
    assert.equal((await hub.insurance.stakeOf(agent.agentId)).coverage, "30000000");
    assert.equal((await hub.insurance.coverage(agent.agentId, 25_000_000n)).hasCoverage, true);
    assert.equal((await hub.insurance.coverage(agent.agentId, 30_000_001n)).hasCoverage, false);
    assert.equal((await hub.insurance.stakes(agent.agentId)).stakes.length, 1);

    const requested = await hub.insurance.requestWithdrawal(agent.agentId, 10_000_000n, agent.owner.account);
    assert.equal(requested.phase, "requested");
    const early = await hub.insurance.completeWithdrawal(agent.agentId, agent.owner.account).catch((e) => e);
    assert.ok(isAgentHubError(early, "WITHDRAWAL_NOT_READY"), String(early));
    assert.equal(early.status, 409);
    await increaseTime(14 * 86_400 + 60);
    const done = await hub.insurance.completeWithdrawal(agent.agentId, agent.owner.account);
    assert.equal(done.phase, "withdrawn");
    assert.equal(done.paidTo, agent.owner.address);
    assert.equal(await usdcBalance(agent.owner.address), 10_000_000n);
    assert.equal((await hub.insurance.stakeOf(agent.agentId)).coverage, "20000000");
  });
});

import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { cidOf } from "@agenthub/api/stores/ipfs";
import { AgentIdentityAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import { buildActionMessage } from "@agenthub/sdk/protocol";
import { privateKeyToAccount } from "viem/accounts";
import {
  allowanceOf,
  approveUsdc,
  claimAgent,
  depositDirect,
  faucet,
  registerAgent,
  signedAction,
  signPermit,
  stakedAgent,
  usdcOf,
} from "../support/agents.ts";
import { chainTime } from "../support/runs.ts";
import { api, db, deployments, freshIp, newWallet, publicClient, stack } from "../support/stack.ts";

after(() => db.end());
const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const ownerOf = (id: number) =>
  publicClient.readContract({
    address: deployments.contracts.AgentIdentity.address,
    abi: AgentIdentityAbi,
    functionName: "ownerOf",
    args: [BigInt(id)],
  });

describe("agents: registration", () => {
  it("registers gaslessly, mints to a fresh wallet and never returns a key", async () => {
    const res = await api("POST", "/api/agents/register", {
      body: {
        name: "Registrar",
        capabilities: ["coding", "research"],
        programmingLangs: ["typescript"],
        endpoints: { webhook: "https://agent.example/hook" },
      },
    });
    assert.equal(res.status, 201);
    const b = res.body;
    assert.equal(b.status, "UNVERIFIED");
    assert.ok(Number.isInteger(b.agentId) && b.agentId > 0);
    assert.match(b.claimCode, /^[A-Za-z0-9_-]{32}$/);
    assert.equal(b.claimURL, `${stack.env.PUBLIC_URL}/claim/${b.claimCode}`);
    assert.match(b.txHash, /^0x[0-9a-f]{64}$/);
    assert.ok(b.message && b.instructions);
    assert.equal(JSON.stringify(b).includes("privateKey"), false);
    assert.equal((await ownerOf(b.agentId)).toLowerCase(), b.walletAddress.toLowerCase());
    const stored = await db.query("select encrypted_key from api.agent_wallet where agent_id = $1", [b.agentId]);
    assert.ok(stored.rows[0].encrypted_key.length >= 12 + 16 + 32, "key stored encrypted");
  });

  it("publishes an ERC-8004 registration file whose CID matches its bytes", async () => {
    const reg = await registerAgent({ name: "Cid Check", description: "checks cids", tools: ["git"] });
    const detail = await api("GET", `/api/agents/${reg.agentId}`);
    const uri: string = detail.body.ipfsHash;
    assert.match(uri, /^ipfs:\/\/b[a-z2-7]+$/);
    const tokenUri = await publicClient.readContract({
      address: deployments.contracts.AgentIdentity.address,
      abi: AgentIdentityAbi,
      functionName: "tokenURI",
      args: [BigInt(reg.agentId)],
    });
    assert.equal(tokenUri, uri);
    const res = await fetch(`${stack.apiUrl}/ipfs/${uri.slice(7)}`);
    const bytes = new Uint8Array(await res.arrayBuffer());
    assert.equal(await cidOf(bytes), uri.slice(7));
    const file = JSON.parse(new TextDecoder().decode(bytes));
    assert.equal(file.type, "https://eips.ethereum.org/EIPS/eip-8004#registration-v1");
    assert.equal(file.name, "Cid Check");
    // The id is known only from the mint's event, so the file minted with the token cannot name it (decisions.md).
    assert.deepEqual(file.registrations, []);
    const card = await api("GET", `/api/agents/${reg.agentId}/agent-card.json`);
    assert.equal(card.status, 200);
    assert.equal(card.body.name, "Cid Check");
  });

  it("rejects invalid profiles with 400 VALIDATION_ERROR", async () => {
    const cases = [
      {},
      { name: "" },
      { name: "x".repeat(101) },
      { name: "ok", capabilities: Array.from({ length: 11 }, (_, i) => `c${i}`) },
      { name: "ok", programmingLangs: Array.from({ length: 21 }, (_, i) => `l${i}`) },
      { name: "ok", endpoints: { webhook: "ftp://nope" } },
      { name: "ok", unexpected: true },
    ];
    for (const body of cases) {
      const res = await api("POST", "/api/agents/register", { body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
  });

  it("limits registrations to 3 per 24 hours per IP with rate headers", async () => {
    const ip = freshIp();
    for (let i = 0; i < 3; i++) {
      const ok = await api("POST", "/api/agents/register", { ip, body: { name: `limited-${i}` } });
      assert.equal(ok.status, 201);
      assert.equal(ok.headers.get("x-ratelimit-limit"), "3");
      assert.equal(ok.headers.get("x-ratelimit-remaining"), String(2 - i));
    }
    const limited = await api("POST", "/api/agents/register", { ip, body: { name: "limited-4" } });
    assert.equal(limited.status, 429);
    assert.equal(limited.body.error.code, "RATE_LIMITED");
    assert.ok(Number(limited.headers.get("x-ratelimit-reset")) >= Math.floor(Date.now() / 1000));
  });
});

describe("agents: claim flow", () => {
  it("claim-info answers for a fresh code and 404 for an unknown one", async () => {
    const reg = await registerAgent();
    const info = await api("GET", `/api/agents/claim-info/${reg.claimCode}`);
    assert.equal(info.status, 200);
    assert.equal(info.body.agentId, reg.agentId);
    assert.equal(info.body.walletAddress, reg.walletAddress);
    assert.ok(new Date(info.body.expiresAt).getTime() > Date.now() + 29 * 86400_000);
    const unknown = await api("GET", "/api/agents/claim-info/not-a-real-code");
    assert.equal(unknown.status, 404);
    assert.equal(unknown.body.error.code, "CLAIM_CODE_INVALID");
  });

  it("returns the key to the claimant only, moves the token, then refuses everyone else", async () => {
    const reg = await registerAgent();
    const { owner, agentKey, body } = await claimAgent(reg.agentId, reg.claimCode);
    assert.equal(privateKeyToAccount(agentKey).address, reg.walletAddress);
    assert.match(body.message, /erases its copy at/);
    assert.equal((await ownerOf(reg.agentId)).toLowerCase(), owner.address.toLowerCase());
    const again = await api("GET", `/api/agents/claim-info/${reg.claimCode}`);
    assert.equal(again.status, 400);
    assert.equal(again.body.error.code, "CLAIM_ALREADY_USED");
    // A retry of the same claim (the answer may have been lost) gets the same key until keyErasedAt.
    const sig = await owner.account.signMessage({
      message: `I claim agent ${reg.agentId} to address ${owner.address}`,
    });
    const retry = await api("POST", `/api/agents/${reg.agentId}/claim`, {
      body: { signature: sig, userAddress: owner.address, claimCode: reg.claimCode },
    });
    assert.equal(retry.status, 200);
    assert.equal(retry.body.privateKey, agentKey);
    assert.equal(retry.body.txHash, body.txHash, "no second transfer");
    const stranger = newWallet();
    const strangerSig = await stranger.account.signMessage({
      message: `I claim agent ${reg.agentId} to address ${stranger.address}`,
    });
    const second = await api("POST", `/api/agents/${reg.agentId}/claim`, {
      body: { signature: strangerSig, userAddress: stranger.address, claimCode: reg.claimCode },
    });
    assert.equal(second.status, 400);
    assert.equal(second.body.error.code, "CLAIM_ALREADY_USED");
    const detail = await api("GET", `/api/agents/${reg.agentId}`);
    assert.equal(detail.body.claimed, true);
  });

  it("rejects bad signatures, replays for another agent, wrong codes and unknown agents", async () => {
    const a = await registerAgent();
    const b = await registerAgent();
    const user = newWallet();
    const forB = await user.account.signMessage({ message: `I claim agent ${b.agentId} to address ${user.address}` });
    const replay = await api("POST", `/api/agents/${a.agentId}/claim`, {
      body: { signature: forB, userAddress: user.address, claimCode: a.claimCode },
    });
    assert.equal(replay.status, 401);
    assert.equal(replay.body.error.code, "INVALID_SIGNATURE");
    const stranger = newWallet();
    const notTheSigner = await stranger.account.signMessage({
      message: `I claim agent ${a.agentId} to address ${user.address}`,
    });
    const wrongSigner = await api("POST", `/api/agents/${a.agentId}/claim`, {
      body: { signature: notTheSigner, userAddress: user.address, claimCode: a.claimCode },
    });
    assert.equal(wrongSigner.status, 401);
    const good = await user.account.signMessage({ message: `I claim agent ${a.agentId} to address ${user.address}` });
    const wrongCode = await api("POST", `/api/agents/${a.agentId}/claim`, {
      body: { signature: good, userAddress: user.address, claimCode: b.claimCode },
    });
    assert.equal(wrongCode.status, 404);
    assert.equal(wrongCode.body.error.code, "CLAIM_CODE_INVALID");
    const missing = await api("POST", "/api/agents/999999/claim", {
      body: { signature: good, userAddress: user.address, claimCode: a.claimCode },
    });
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "AGENT_NOT_FOUND");
  });

  it("20 parallel claims by 20 claimants: exactly one gets the key", async () => {
    const reg = await registerAgent();
    const bodies = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const user = newWallet();
        const signature = await user.account.signMessage({
          message: `I claim agent ${reg.agentId} to address ${user.address}`,
        });
        return { signature, userAddress: user.address, claimCode: reg.claimCode };
      }),
    );
    const results = await Promise.all(bodies.map((body) => api("POST", `/api/agents/${reg.agentId}/claim`, { body })));
    const winners = results.filter((r) => r.status === 200);
    assert.equal(winners.length, 1);
    for (const r of results.filter((x) => x.status !== 200)) {
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, "CLAIM_ALREADY_USED");
    }
    assert.equal(privateKeyToAccount(winners[0]!.body.privateKey).address, reg.walletAddress);
  });
});

describe("agents: reads and profile updates", () => {
  it("lists with pagination and shows detail fields; unknown ids are 404", async () => {
    const reg = await registerAgent({ domains: ["defi"], tools: ["foundry"] });
    const list = await api("GET", "/api/agents?page=1&limit=2");
    assert.equal(list.status, 200);
    assert.equal(list.body.agents.length, 2);
    assert.equal(list.body.pagination.limit, 2);
    assert.ok(list.body.pagination.total >= 2);
    assert.equal(list.body.pagination.totalPages, Math.ceil(list.body.pagination.total / 2));
    const item = list.body.agents[0];
    for (const k of [
      "tokenId",
      "walletAddress",
      "ipfsHash",
      "claimed",
      "createdAt",
      "capabilities",
      "programmingLangs",
      "domains",
      "tools",
    ])
      assert.ok(k in item, k);
    assert.equal((await api("GET", "/api/agents?limit=101")).status, 400);
    const detail = await api("GET", `/api/agents/${reg.agentId}`);
    assert.equal(detail.status, 200);
    assert.equal(detail.body.id, reg.agentId);
    assert.equal(detail.body.status, "UNVERIFIED");
    assert.equal(detail.body.stakedAmount, "0");
    assert.equal(detail.body.slashHistory, "[]");
    assert.equal(detail.body.reportCount, 0);
    assert.deepEqual(detail.body.reputation, { score: 50, completions: 0, totalClaimed: 0, totalVolume: "0" });
    assert.deepEqual(detail.body.domains, ["defi"]);
    const missing = await api("GET", "/api/agents/987654");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "AGENT_NOT_FOUND");
    assert.equal((await api("GET", "/api/agents/abc")).status, 400);
  });

  it("PATCH updates the profile on chain when signed by the owner, once per nonce", async () => {
    const reg = await registerAgent({ name: "Before" });
    const { owner } = await claimAgent(reg.agentId, reg.claimCode);
    const signed = await signedAction(owner.key, "update-profile", "agent", reg.agentId);
    const res = await api("PATCH", `/api/agents/${reg.agentId}`, {
      body: { ...signed, name: "After", capabilities: ["writing"] },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.name, "After");
    assert.deepEqual(res.body.capabilities, ["writing"]);
    const tokenUri = await publicClient.readContract({
      address: deployments.contracts.AgentIdentity.address,
      abi: AgentIdentityAbi,
      functionName: "tokenURI",
      args: [BigInt(reg.agentId)],
    });
    assert.equal(tokenUri, res.body.ipfsHash);
    const replay = await api("PATCH", `/api/agents/${reg.agentId}`, { body: { ...signed, name: "Replayed" } });
    assert.equal(replay.status, 401);
    assert.equal(replay.body.error.code, "INVALID_SIGNATURE");
  });

  it("PATCH refuses non-owners, other agents' signatures and expired messages", async () => {
    const reg = await registerAgent();
    const { owner } = await claimAgent(reg.agentId, reg.claimCode);
    const stranger = newWallet();
    const bySomeoneElse = await signedAction(stranger.key, "update-profile", "agent", reg.agentId);
    const forbidden = await api("PATCH", `/api/agents/${reg.agentId}`, { body: { ...bySomeoneElse, name: "Hijack" } });
    assert.equal(forbidden.status, 403);
    assert.equal(forbidden.body.error.code, "NOT_AGENT_OWNER");
    const otherAgent = await signedAction(owner.key, "update-profile", "agent", reg.agentId + 100000);
    const wrongResource = await api("PATCH", `/api/agents/${reg.agentId}`, { body: { ...otherAgent, name: "Nope" } });
    assert.equal(wrongResource.status, 401);
    const nonce = (await api("GET", "/api/auth/nonce")).body.nonce;
    const expiredMessage = buildActionMessage({
      address: owner.address,
      action: "update-profile",
      kind: "agent",
      id: reg.agentId,
      nonce,
      apiUrl: stack.env.PUBLIC_URL!,
      now: new Date(Date.now() - 3600_000),
      ttlSeconds: 60,
    });
    const expired = await api("PATCH", `/api/agents/${reg.agentId}`, {
      body: {
        message: expiredMessage,
        signature: await owner.account.signMessage({ message: expiredMessage }),
        name: "Late",
      },
    });
    assert.equal(expired.status, 401);
    assert.match(expired.body.error.message, /expired/);
  });
});

describe("agents: stake, slash and the trust ladder", () => {
  it("records a confirmed deposit once and moves the agent to PROVISIONAL", async () => {
    const reg = await registerAgent();
    const { agentKey } = await claimAgent(reg.agentId, reg.claimCode);
    await faucet(reg.walletAddress, 25_000_000n, 10n ** 17n);
    const txHash = await depositDirect(agentKey, reg.agentId, 25_000_000n);
    const low = await api("POST", `/api/agents/${reg.agentId}/stake`, {
      body: { amount: "19999999", txHash, walletAddress: reg.walletAddress },
    });
    assert.equal(low.status, 400);
    assert.equal(low.body.error.code, "INSUFFICIENT_STAKE");
    const mismatch = await api("POST", `/api/agents/${reg.agentId}/stake`, {
      body: { amount: "25000000", txHash, walletAddress: newWallet().address },
    });
    assert.equal(mismatch.status, 403);
    const ok = await api("POST", `/api/agents/${reg.agentId}/stake`, {
      body: { amount: "25000000", txHash, walletAddress: reg.walletAddress },
    });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.success, true);
    assert.equal(ok.body.status, "PROVISIONAL");
    assert.equal(ok.body.stakedAmount, "25000000");
    assert.ok(ok.body.stakedAt);
    const reused = await api("POST", `/api/agents/${reg.agentId}/stake`, {
      body: { amount: "25000000", txHash, walletAddress: reg.walletAddress },
    });
    assert.equal(reused.status, 400);
    assert.equal(reused.body.error.code, "TX_ALREADY_USED");
    const status = await api("GET", `/api/agents/${reg.agentId}/stake`);
    assert.deepEqual(
      {
        isStaked: status.body.isStaked,
        canClaimRuns: status.body.canClaimRuns,
        minimumStake: status.body.minimumStake,
        slashHistory: status.body.slashHistory,
      },
      { isStaked: true, canClaimRuns: true, minimumStake: "20000000", slashHistory: [] },
    );
  });

  it("stakes gaslessly with a permit through the relayer", async () => {
    const reg = await registerAgent();
    const { agentKey } = await claimAgent(reg.agentId, reg.claimCode);
    await faucet(reg.walletAddress, 30_000_000n);
    const deadline = (await chainTime()) + 3600n; // chain time: earlier files may have moved it
    const signature = await signPermit(agentKey, deployments.contracts.StakeVault.address, 30_000_000n, deadline);
    const garbled = await api("POST", `/api/agents/${reg.agentId}/stake/permit`, {
      body: {
        walletAddress: reg.walletAddress,
        amount: "30000000",
        deadline: Number(deadline),
        signature: `0x${"11".repeat(65)}`,
      },
    });
    assert.equal(garbled.status, 400);
    assert.equal(garbled.body.error.code, "INVALID_PERMIT");
    const res = await api("POST", `/api/agents/${reg.agentId}/stake/permit`, {
      body: { walletAddress: reg.walletAddress, amount: "30000000", deadline: Number(deadline), signature },
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.status, "PROVISIONAL");
    assert.equal(res.body.stakedAmount, "30000000");
    const eth = await publicClient.getBalance({ address: reg.walletAddress });
    assert.equal(eth, 0n, "the agent wallet never needed ETH");
  });

  it("a permit that is not the wallet's cannot pull the wallet's existing allowance into a stake", async () => {
    const reg = await registerAgent();
    const { agentKey } = await claimAgent(reg.agentId, reg.claimCode);
    const vault = deployments.contracts.StakeVault.address;
    // The victim approved the vault for a direct deposit it has not made yet.
    await faucet(reg.walletAddress, 50_000_000n, 10n ** 16n);
    await approveUsdc(agentKey, vault, 50_000_000n);
    const attacker = newWallet();
    const deadline = (await chainTime()) + 3600n; // chain time: earlier files may have moved it
    const forged = [
      // the attacker's own signature over the victim's permit fields
      await signPermit(attacker.key, vault, 50_000_000n, deadline),
      // a well-formed signature that recovers to nobody in particular
      `0x${"11".repeat(32)}${"22".repeat(32)}1b`,
    ];
    // the victim's real permit, but for another amount than the one asked
    const otherAmount = await signPermit(agentKey, vault, 20_000_000n, deadline);
    for (const signature of [...forged, otherAmount]) {
      const res = await api("POST", `/api/agents/${reg.agentId}/stake/permit`, {
        body: { walletAddress: reg.walletAddress, amount: "50000000", deadline: Number(deadline), signature },
      });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "INVALID_PERMIT");
    }
    // An expired permit of the victim's is refused too.
    const past = BigInt(Math.floor(Date.now() / 1000) - 10);
    const expired = await api("POST", `/api/agents/${reg.agentId}/stake/permit`, {
      body: {
        walletAddress: reg.walletAddress,
        amount: "50000000",
        deadline: Number(past),
        signature: await signPermit(agentKey, vault, 50_000_000n, past),
      },
    });
    assert.equal(expired.body.error?.code, "INVALID_PERMIT");
    assert.equal(await usdcOf(reg.walletAddress), 50_000_000n);
    assert.equal(await allowanceOf(reg.walletAddress, vault), 50_000_000n);
    const status = await api("GET", `/api/agents/${reg.agentId}/stake`);
    assert.equal(status.body.stakedAmount, "0");
  });

  it("admin slash freezes, re-staking lifts it, the third slash of any size bans (the vault's trust state)", async () => {
    const agent = await stakedAgent(40_000_000n);
    const noAuth = await api("POST", `/api/agents/${agent.agentId}/slash`, {
      body: { reason: "test", percentage: 50 },
    });
    assert.equal(noAuth.status, 401);
    const half = await api("POST", `/api/agents/${agent.agentId}/slash`, {
      headers: admin,
      body: { reason: "missed deadline", percentage: 50 },
    });
    assert.equal(half.status, 200, JSON.stringify(half.body));
    assert.equal(half.body.slashedAmount, "20000000");
    assert.equal(half.body.remainingStake, "20000000");
    assert.equal(half.body.status, "FROZEN");
    assert.equal(half.body.slashHistory.length, 1);
    const detail = await api("GET", `/api/agents/${agent.agentId}`);
    assert.equal(detail.body.status, "FROZEN");
    assert.equal(JSON.parse(detail.body.slashHistory)[0].reason, "missed deadline");
    // Re-staking to the minimum lifts FROZEN.
    await faucet(agent.walletAddress, 20_000_000n);
    const tx = await depositDirect(agent.agentKey, agent.agentId, 20_000_000n);
    const overstated = await api("POST", `/api/agents/${agent.agentId}/stake`, {
      body: { amount: "30000000", txHash: tx, walletAddress: agent.walletAddress },
    });
    assert.equal(overstated.status, 400, "stated amount above the deposit is refused");
    assert.equal(overstated.body.error.code, "STAKE_AMOUNT_MISMATCH");
    const restake = await api("POST", `/api/agents/${agent.agentId}/stake`, {
      body: { amount: "20000000", txHash: tx, walletAddress: agent.walletAddress },
    });
    assert.equal(restake.status, 200, JSON.stringify(restake.body));
    assert.equal(restake.body.status, "PROVISIONAL");
    assert.equal(restake.body.stakedAmount, "40000000");
    // Strikes 2 and 3: a small slash freezes again, the third slash (however small) bans.
    for (const [i, percentage] of [1, 0.01].entries()) {
      if (i > 0) {
        await faucet(agent.walletAddress, 20_000_000n);
        await depositDirect(agent.agentKey, agent.agentId, 20_000_000n);
      }
      const partial = await api("POST", `/api/agents/${agent.agentId}/slash`, {
        headers: admin,
        body: { reason: `strike ${i + 2}`, percentage },
      });
      assert.equal(partial.status, 200, JSON.stringify(partial.body));
      assert.equal(partial.body.status, i === 0 ? "FROZEN" : "BANNED");
    }
    const trust = await publicClient.readContract({
      address: deployments.contracts.StakeVault.address,
      abi: StakeVaultAbi,
      functionName: "trustOf",
      args: [BigInt(agent.agentId)],
    });
    assert.deepEqual(trust, [2, 3n], "Banned with three strikes on chain");
    // The vault itself refuses a banned agent's deposit; the API refuses to record one.
    await faucet(agent.walletAddress, 20_000_000n);
    await assert.rejects(depositDirect(agent.agentKey, agent.agentId, 20_000_000n), /StakeVaultAgentBanned/);
    const banned = await api("POST", `/api/agents/${agent.agentId}/stake`, {
      body: { amount: "20000000", txHash: `0x${"ab".repeat(32)}`, walletAddress: agent.walletAddress },
    });
    assert.equal(banned.status, 403);
    assert.equal(banned.body.error.code, "AGENT_BANNED");
  });

  it("admin slash with an Idempotency-Key slashes once however often it is retried", async () => {
    const agent = await stakedAgent(40_000_000n);
    const vault = deployments.contracts.StakeVault.address;
    const before = await usdcOf(vault);
    const key = `slash-${Math.random().toString(36).slice(2)}`;
    const slash = (body: Record<string, unknown>, k = key) =>
      api("POST", `/api/agents/${agent.agentId}/slash`, { headers: { ...admin, "idempotency-key": k }, body });
    const body = { reason: "fraud", percentage: 25 };
    // The first request and two retries, one of them concurrent with it.
    const [first, concurrent] = await Promise.all([slash(body), slash(body)]);
    const retry = await slash(body);
    for (const res of [first, concurrent, retry]) {
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.equal(res.body.txHash, first.body.txHash);
      assert.equal(res.body.slashedAmount, "10000000");
    }
    assert.equal(retry.body.remainingStake, "30000000");
    assert.equal(retry.body.slashHistory.length, 1);
    assert.equal(await usdcOf(vault), before - 10_000_000n, "the vault paid out exactly one slash");
    // The same key for another slash is refused; a new key slashes again.
    const reused = await slash({ reason: "fraud", percentage: 50 });
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error.code, "IDEMPOTENCY_KEY_REUSED");
    // The same key format as registration (lib/idempotency.ts): 8-255 visible ASCII characters.
    for (const malformed of ["spaces are not allowed", "short", "k".repeat(256)]) {
      const bad = await slash(body, malformed);
      assert.equal(bad.status, 400, malformed);
      assert.equal(bad.body.error.code, "INVALID_IDEMPOTENCY_KEY");
    }
    const second = await slash(body, `${key}-2`);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(second.body.slashHistory.length, 2);
    // A full slash retried after it emptied the stake still answers the first slash.
    const fullKey = `${key}-full`;
    const full = await slash({ reason: "all", percentage: 100 }, fullKey);
    assert.equal(full.status, 200, JSON.stringify(full.body));
    const fullRetry = await slash({ reason: "all", percentage: 100 }, fullKey);
    assert.equal(fullRetry.status, 200, JSON.stringify(fullRetry.body));
    assert.equal(fullRetry.body.txHash, full.body.txHash);
    assert.equal(fullRetry.body.slashHistory.length, 3);
  });

  it("reports are counted; bad reasons are 400", async () => {
    const reg = await registerAgent();
    const r1 = await api("POST", `/api/agents/${reg.agentId}/report`, {
      body: { reason: "spam", details: "posts links" },
    });
    assert.equal(r1.status, 201);
    assert.equal(r1.body.status, "PENDING");
    assert.equal(r1.body.reportCount, 1);
    const bad = await api("POST", `/api/agents/${reg.agentId}/report`, { body: { reason: "ugly", details: "x" } });
    assert.equal(bad.status, 400);
    const detail = await api("GET", `/api/agents/${reg.agentId}`);
    assert.equal(detail.body.reportCount, 1);
  });
});

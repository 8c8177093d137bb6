// Attestations against the real stack: spec x-payment signed by the attestor's owner or wallet (EIP-712), every
// rule with its own code, weights from the attestor's reputation, and the subject's reputation moving.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import type { Address, LocalAccount } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { claimAgent, depositDirect, faucet, registerAgent } from "../support/agents.ts";
import { setTxtRecord } from "../support/dns.ts";
import { signPayment } from "../support/payments.ts";
import { api, db, newWallet } from "../support/stack.ts";

const CREATE = "/api/attestations/create";
let recipient: Address;

before(async () => {
  recipient = (await api("GET", "/api/config")).body.platformRecipient;
});

async function claimedAgent(owner?: ReturnType<typeof newWallet>) {
  const reg = await registerAgent();
  if (!owner) {
    const claim = await claimAgent(reg.agentId, reg.claimCode);
    return {
      ...reg,
      owner: claim.owner.account as LocalAccount,
      wallet: privateKeyToAccount(claim.agentKey),
      agentKey: claim.agentKey,
    };
  }
  // Claimed to a chosen owner (to build two agents of the same wallet).
  const signature = await owner.account.signMessage({
    message: `I claim agent ${reg.agentId} to address ${owner.address}`,
  });
  const res = await api("POST", `/api/agents/${reg.agentId}/claim`, {
    body: { signature, userAddress: owner.address, claimCode: reg.claimCode },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return {
    ...reg,
    owner: owner.account as LocalAccount,
    wallet: privateKeyToAccount(res.body.privateKey),
    agentKey: res.body.privateKey as `0x${string}`,
  };
}

async function attest(payer: LocalAccount, body: Record<string, unknown>, nonce?: string) {
  const header = await signPayment(payer, { recipient, endpoint: CREATE, nonce });
  return api("POST", CREATE, { body, headers: { "x-payment": header } });
}

async function reputation(agentId: number) {
  const res = await api("GET", `/api/reputation/${agentId}`);
  assert.equal(res.status, 200);
  return res.body;
}

describe("attestations: create", () => {
  it("the attestor's owner or wallet pays; weight from its reputation; the subject's reputation moves", async () => {
    const a = await claimedAgent();
    const b = await claimedAgent();
    const res = await attest(a.owner, {
      attestorId: a.agentId,
      subjectId: b.agentId,
      category: "quality",
      rating: 5,
      comment: "clean work",
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const att = res.body.attestation;
    assert.equal(att.category, "quality");
    assert.equal(att.rating, 5);
    assert.equal(att.comment, "clean work");
    assert.equal(att.weight, 1.2, "attestor at 50 -> 1.2");
    assert.ok(!Number.isNaN(Date.parse(att.createdAt)));
    const stored = await db.query("select payer from api.attestation where id = $1", [att.id]);
    assert.equal(stored.rows[0].payer.toLowerCase(), a.owner.address.toLowerCase());

    // 50 + 5/5 x 0.2 x 100 = 70
    let rep = await reputation(b.agentId);
    assert.equal(rep.attestationCount, 1);
    assert.equal(rep.attestationScore, 5);
    assert.equal(rep.score, 70);
    const history = (await api("GET", `/api/reputation/${b.agentId}/history`)).body.history;
    assert.equal(history[0].trigger, "attestation");

    // The agent's own wallet may pay too; a 2 for reliability: (5 x 1.2 + 2 x 1.2) / 2.4 = 3.5 -> 50 + 14
    const byWallet = await attest(a.wallet, {
      attestorId: a.agentId,
      subjectId: b.agentId,
      category: "reliability",
      rating: 2,
    });
    assert.equal(byWallet.status, 201, JSON.stringify(byWallet.body));
    assert.equal(byWallet.body.attestation.comment, null);
    rep = await reputation(b.agentId);
    assert.equal(rep.attestationScore, 3.5);
    assert.equal(rep.score, 64);
  });

  it("weights follow the attestor's reputation: 60 -> 1.5, and attestationScore is the weighted average", async () => {
    const strong = await claimedAgent();
    // Badges to 60: skill 3 + stake-5000 4 + domain 3.
    // A fresh skill attempt, answered with the server's own record of its answers.
    const attempt = (
      await api("POST", "/api/verifications/skill/rust-coding/attempts", { body: { agentId: strong.agentId } })
    ).body;
    const key = (await db.query("select questions from api.skill_attempt where id = $1", [attempt.attemptId])).rows[0]
      .questions as { question: string; answer: string }[];
    const answers = key.map((q) => ({ question: q.question, answer: q.answer, correct: true }));
    assert.equal(
      (
        await api("POST", "/api/verifications/skill", {
          body: {
            agentId: strong.agentId,
            skillName: "rust-coding",
            attemptId: attempt.attemptId,
            testResults: { score: 100, passed: true, questions: answers },
          },
        })
      ).status,
      201,
    );
    // Stake badges prove stake locked in the vault.
    await faucet(strong.walletAddress, 5_000_000_000n, 10n ** 16n);
    await depositDirect(strong.agentKey, strong.agentId, 5_000_000_000n);
    const stake = (
      await api("POST", "/api/verifications/stake", {
        body: { agentId: strong.agentId, minStakeAmount: "5000000000" },
      })
    ).body.verification;
    assert.equal((await api("POST", `/api/verifications/${stake.id}/verify-stake`)).status, 200);
    const domain = `att-${Math.random().toString(36).slice(2, 10)}.example`;
    const dv = (await api("POST", "/api/verifications/domain", { body: { agentId: strong.agentId, domain } })).body
      .verification;
    setTxtRecord(`_hub.${domain}`, [dv.dnsRecord]);
    assert.equal((await api("POST", `/api/verifications/${dv.id}/verify`)).status, 200);
    assert.equal((await reputation(strong.agentId)).score, 60);

    const weak = await claimedAgent();
    const subject = await claimedAgent();
    const s = await attest(strong.owner, {
      attestorId: strong.agentId,
      subjectId: subject.agentId,
      category: "expertise",
      rating: 2,
    });
    assert.equal(s.body.attestation.weight, 1.5);
    const w = await attest(weak.owner, {
      attestorId: weak.agentId,
      subjectId: subject.agentId,
      category: "expertise",
      rating: 5,
    });
    assert.equal(w.body.attestation.weight, 1.2);
    // (2 x 1.5 + 5 x 1.2) / 2.7 = 3.3333
    const rep = await reputation(subject.agentId);
    assert.equal(rep.attestationScore, 3.3333);

    const stats = await api("GET", `/api/attestations/agent/${subject.agentId}/stats`);
    assert.equal(stats.status, 200);
    assert.equal(stats.body.count, 2);
    assert.equal(stats.body.averageRating, 3.5);
    assert.equal(stats.body.attestationScore, 3.3333);
    assert.equal(stats.body.totalWeight, 2.7);
    assert.deepEqual(stats.body.categories.expertise, {
      count: 2,
      averageRating: 3.5,
      weightedScore: 3.3333,
      totalWeight: 2.7,
    });
    assert.deepEqual(stats.body.categories.quality, { count: 0, averageRating: 0, weightedScore: 0, totalWeight: 0 });
    assert.equal((await api("GET", `/api/attestations/agent/${strong.agentId}/stats`)).body.givenCount, 1);
  });

  it("each broken rule has its own code, and the refused payment can be used again", async () => {
    const a = await claimedAgent();
    const b = await claimedAgent();
    const base = { attestorId: a.agentId, subjectId: b.agentId, category: "communication", rating: 4 };

    const unpaid = await api("POST", CREATE, { body: base });
    assert.equal(unpaid.status, 402);
    assert.equal(unpaid.body.error.code, "PAYMENT_REQUIRED");

    const stranger = newWallet();
    const forged = await attest(stranger.account, base);
    assert.equal(forged.status, 403);
    assert.equal(forged.body.error.code, "ATTESTOR_NOT_AUTHORIZED");
    // The subject's owner cannot speak for the attestor either.
    assert.equal((await attest(b.owner, base)).body.error.code, "ATTESTOR_NOT_AUTHORIZED");

    const cases: [Record<string, unknown>, number, string][] = [
      [{ ...base, category: "friendliness" }, 400, "INVALID_CATEGORY"],
      [{ ...base, rating: 0 }, 400, "INVALID_RATING"],
      [{ ...base, rating: 6 }, 400, "INVALID_RATING"],
      [{ ...base, rating: 3.5 }, 400, "INVALID_RATING"],
      [{ ...base, subjectId: a.agentId }, 400, "SELF_ATTESTATION"],
      [{ ...base, subjectId: 987654321 }, 404, "AGENT_NOT_FOUND"],
      [{ ...base, attestorId: 987654321 }, 404, "AGENT_NOT_FOUND"],
      [{ ...base, rating: "4" }, 400, "VALIDATION_ERROR"],
    ];
    // One nonce for all: every refusal gives the payment back.
    const nonce = `retry-${Math.random()}`;
    for (const [body, status, code] of cases) {
      const res = await attest(a.owner, body, nonce);
      assert.equal(res.status, status, `${code}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.error.code, code);
    }
    const ok = await attest(a.owner, base, nonce);
    assert.equal(ok.status, 201, JSON.stringify(ok.body));
    // Now the nonce is spent.
    assert.equal((await attest(a.owner, { ...base, category: "quality" }, nonce)).body.error.code, "NONCE_REUSED");

    const dup = await attest(a.owner, base);
    assert.equal(dup.status, 409);
    assert.equal(dup.body.error.code, "ATTESTATION_EXISTS");
    // Another category is another attestation.
    assert.equal((await attest(a.owner, { ...base, category: "quality" })).status, 201);
  });

  it("agents owned by the same wallet cannot attest each other", async () => {
    const owner = newWallet();
    const first = await claimedAgent(owner);
    const second = await claimedAgent(owner);
    const res = await attest(owner.account as LocalAccount, {
      attestorId: first.agentId,
      subjectId: second.agentId,
      category: "quality",
      rating: 5,
    });
    assert.equal(res.status, 400);
    assert.equal(res.body.error.code, "SAME_OWNER_ATTESTATION");
    // Paying with the attestor's own wallet does not get around it.
    const viaWallet = await attest(first.wallet, {
      attestorId: first.agentId,
      subjectId: second.agentId,
      category: "quality",
      rating: 5,
    });
    assert.equal(viaWallet.body.error.code, "SAME_OWNER_ATTESTATION");
  });
});

describe("attestations: reads", () => {
  it("lists received (with attestor id, wallet and reputation) and given; single reads; 404s", async () => {
    const a = await claimedAgent();
    const b = await claimedAgent();
    const created = (
      await attest(a.owner, { attestorId: a.agentId, subjectId: b.agentId, category: "expertise", rating: 4 })
    ).body.attestation;

    const listB = await api("GET", `/api/attestations/agent/${b.agentId}`);
    assert.equal(listB.status, 200);
    assert.equal(listB.body.received.length, 1);
    assert.deepEqual(listB.body.given, []);
    const item = listB.body.received[0];
    assert.equal(item.id, created.id);
    assert.deepEqual(Object.keys(item.attestor).sort(), ["id", "reputation", "walletAddress"]);
    assert.equal(item.attestor.id, a.agentId);
    assert.equal(item.attestor.walletAddress.toLowerCase(), a.walletAddress.toLowerCase());
    assert.equal(item.attestor.reputation, (await reputation(a.agentId)).score);

    const listA = await api("GET", `/api/attestations/agent/${a.agentId}`);
    assert.equal(listA.body.given.length, 1);
    assert.equal(listA.body.given[0].subject.id, b.agentId);

    const one = await api("GET", `/api/attestations/${created.id}`);
    assert.equal(one.status, 200);
    assert.equal(one.body.attestation.rating, 4);
    assert.equal(one.body.attestation.attestorScore, 50);
    assert.equal(one.body.attestation.subject.id, b.agentId);

    assert.equal((await api("GET", "/api/attestations/987654321")).body.error.code, "ATTESTATION_NOT_FOUND");
    assert.equal((await api("GET", "/api/attestations/agent/987654321")).body.error.code, "AGENT_NOT_FOUND");
    assert.equal((await api("GET", "/api/attestations/agent/987654321/stats")).body.error.code, "AGENT_NOT_FOUND");
    assert.equal((await api("GET", "/api/attestations/abc")).status, 400);
  });
});

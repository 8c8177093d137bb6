// Verifications against the real stack: TXT lookups through a DNS server on loopback, stake locked in the vault,
// server-graded skill tests, chain time for validity, retakes and the expiry job.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { claimAgent, depositDirect, faucet, registerAgent, stakedAgent } from "../support/agents.ts";
import { setTxtRecord } from "../support/dns.ts";
import {
  api,
  apiClockCaughtUp,
  db,
  dbNow,
  deployments,
  jobRanSince,
  increaseTime as moveChainTime,
  publicClient,
  waitUntil,
} from "../support/stack.ts";

const DAY = 86_400;
/** Moves chain time, then waits for the API's chain clock to see it. */
async function increaseTime(seconds: number) {
  await moveChainTime(seconds);
  await apiClockCaughtUp();
}
const days = (iso: string, from: string) => (Date.parse(iso) - Date.parse(from)) / (DAY * 1000);
const domainName = () => `agent-${Math.random().toString(36).slice(2, 10)}.example`;

async function reputation(agentId: number) {
  const res = await api("GET", `/api/reputation/${agentId}`);
  assert.equal(res.status, 200);
  return res.body;
}

/** Draws a fresh attempt of `skill` for the agent (questions without answers). */
async function drawAttempt(skill: string, agentId: number) {
  const res = await api("POST", `/api/verifications/skill/${skill}/attempts`, { body: { agentId } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { attemptId: string; questions: { question: string; options: string[] }[] };
}

/**
 * A fresh attempt answered right for the first `right` questions and wrong after. The right options are read from
 * the server's own record of the attempt (they exist nowhere else).
 */
async function answers(skill: string, agentId: number, right: number) {
  const drawn = await drawAttempt(skill, agentId);
  const stored = (await db.query("select questions from api.skill_attempt where id = $1", [drawn.attemptId])).rows[0]
    .questions as { question: string; answer: string }[];
  const correctOf = (q: string) => stored.find((x) => x.question === q)!.answer;
  const questions = drawn.questions.map((q, i) => {
    const good = correctOf(q.question);
    return { question: q.question, answer: i < right ? good : q.options.find((o) => o !== good)!, correct: true };
  });
  return { attemptId: drawn.attemptId, questions };
}

describe("verifications: domain", () => {
  it("PENDING with a hub-verify token; the TXT record at _hub.<domain> verifies it for a year", async () => {
    const agent = await registerAgent();
    const domain = domainName();
    const created = await api("POST", "/api/verifications/domain", { body: { agentId: agent.agentId, domain } });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const v = created.body.verification;
    assert.equal(v.status, "PENDING");
    assert.equal(v.type, "domain");
    assert.equal(v.domain, domain);
    assert.match(v.dnsRecord, /^hub-verify=[0-9a-f]{32}$/);
    assert.ok(v.createdAt && v.expiresAt);
    assert.ok(created.body.instructions.includes(`_hub.${domain}`));
    assert.ok(created.body.instructions.includes(v.dnsRecord));

    // Nothing published yet: NXDOMAIN.
    const missing = await api("POST", `/api/verifications/${v.id}/verify`);
    assert.equal(missing.status, 400);
    assert.equal(missing.body.error.code, "DNS_RECORD_NOT_FOUND");
    // A different token at the right name is not enough.
    setTxtRecord(`_hub.${domain}`, ["hub-verify=someoneelse", "v=spf1 -all"]);
    const wrong = await api("POST", `/api/verifications/${v.id}/verify`);
    assert.equal(wrong.body.error.code, "DNS_RECORD_NOT_FOUND");
    assert.equal((await api("GET", `/api/verifications/${v.id}`)).body.verification.status, "PENDING");

    setTxtRecord(`_hub.${domain}`, ["v=spf1 -all", v.dnsRecord]);
    const ok = await api("POST", `/api/verifications/${v.id}/verify`);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const verified = ok.body.verification;
    assert.equal(verified.status, "VERIFIED");
    assert.equal(verified.badge, "domain-verified");
    assert.ok(verified.verifiedAt);
    const validity = days(verified.expiresAt, verified.verifiedAt);
    assert.ok(validity >= 365 && validity <= 366, `${validity} days`);

    // The badge is worth 3 points: 50 + 3.
    const rep = await reputation(agent.agentId);
    assert.deepEqual(rep.verificationBadges, ["domain-verified"]);
    assert.equal(rep.score, 53);
    assert.equal(rep.breakdown.verifications.badgePoints, 3);

    // Another agent cannot take a verified domain, neither by a new request nor by verifying an older one.
    const other = await registerAgent();
    const taken = await api("POST", "/api/verifications/domain", { body: { agentId: other.agentId, domain } });
    assert.equal(taken.status, 400);
    assert.equal(taken.body.error.code, "DOMAIN_ALREADY_VERIFIED");

    // Checking again within a day of the last verification renews nothing: same validity, no second event.
    const soon = await api("POST", `/api/verifications/${v.id}/verify`);
    assert.equal(soon.status, 200, JSON.stringify(soon.body));
    assert.equal(soon.body.verification.verifiedAt, verified.verifiedAt);
    assert.equal(soon.body.verification.expiresAt, verified.expiresAt);

    // Renewal re-runs verify on the same record and moves expiresAt.
    await increaseTime(10 * DAY);
    const renewed = await api("POST", `/api/verifications/${v.id}/verify`);
    assert.equal(renewed.status, 200);
    assert.equal(renewed.body.verification.id, v.id);
    assert.ok(Date.parse(renewed.body.verification.expiresAt) > Date.parse(verified.expiresAt));
    // A failed renewal (record removed) keeps the badge until it expires.
    setTxtRecord(`_hub.${domain}`, null);
    assert.equal((await api("POST", `/api/verifications/${v.id}/verify`)).body.error.code, "DNS_RECORD_NOT_FOUND");
    assert.equal((await api("GET", `/api/verifications/${v.id}`)).body.verification.status, "VERIFIED");
  });

  it("a second request by another agent for a pending domain loses once the first is verified", async () => {
    const a = await registerAgent();
    const b = await registerAgent();
    const domain = domainName();
    const va = (await api("POST", "/api/verifications/domain", { body: { agentId: a.agentId, domain } })).body
      .verification;
    const vb = (await api("POST", "/api/verifications/domain", { body: { agentId: b.agentId, domain } })).body
      .verification;
    setTxtRecord(`_hub.${domain}`, [va.dnsRecord, vb.dnsRecord]);
    assert.equal((await api("POST", `/api/verifications/${va.id}/verify`)).status, 200);
    const lost = await api("POST", `/api/verifications/${vb.id}/verify`);
    assert.equal(lost.status, 400);
    assert.equal(lost.body.error.code, "DOMAIN_ALREADY_VERIFIED");
  });

  it("validates input and answers unknown ids and wrong types with their codes", async () => {
    const agent = await registerAgent();
    for (const domain of ["", "localhost", "no spaces.com", "-bad.com", "1.2.3.4", `${"a".repeat(64)}.com`]) {
      const res = await api("POST", "/api/verifications/domain", { body: { agentId: agent.agentId, domain } });
      assert.equal(res.status, 400, domain);
      assert.equal(res.body.error.code, "VALIDATION_ERROR", domain);
    }
    const normalized = await api("POST", "/api/verifications/domain", {
      body: { agentId: agent.agentId, domain: "Mixed.Example.COM." },
    });
    assert.equal(normalized.body.verification.domain, "mixed.example.com");
    const noAgent = await api("POST", "/api/verifications/domain", {
      body: { agentId: 987654321, domain: "x.example" },
    });
    assert.equal(noAgent.status, 404);
    assert.equal(noAgent.body.error.code, "AGENT_NOT_FOUND");
    for (const path of ["/api/verifications/987654321/verify", "/api/verifications/987654321/verify-stake"]) {
      const res = await api("POST", path);
      assert.equal(res.status, 404);
      assert.equal(res.body.error.code, "VERIFICATION_NOT_FOUND");
    }
    assert.equal((await api("GET", "/api/verifications/987654321")).body.error.code, "VERIFICATION_NOT_FOUND");
    const wrongType = await api("POST", `/api/verifications/${normalized.body.verification.id}/verify-stake`);
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.error.code, "WRONG_VERIFICATION_TYPE");
  });
});

describe("verifications: stake", () => {
  it("reads the agent's locked StakeVault stake, not a wallet balance: VERIFIED stake-100 for 6 months, lapsing on withdrawal", async () => {
    const agent = await registerAgent();
    const { owner, agentKey } = await claimAgent(agent.agentId, agent.claimCode);
    const created = await api("POST", "/api/verifications/stake", {
      body: { agentId: agent.agentId, minStakeAmount: "100000000" },
    });
    assert.equal(created.status, 201);
    const v = created.body.verification;
    assert.equal(v.status, "PENDING");
    assert.equal(v.minStakeAmount, "100000000");
    assert.equal(v.actualBalance, undefined);

    const poor = await api("POST", `/api/verifications/${v.id}/verify-stake`);
    assert.equal(poor.status, 400);
    assert.equal(poor.body.error.code, "INSUFFICIENT_BALANCE");
    // USDC held in the wallet (it could be borrowed for one block) earns nothing.
    await faucet(agent.walletAddress, 150_000_000n, 10n ** 16n);
    const held = await api("POST", `/api/verifications/${v.id}/verify-stake`);
    assert.equal(held.status, 400, JSON.stringify(held.body));
    assert.equal(held.body.error.code, "INSUFFICIENT_BALANCE");

    await depositDirect(agentKey, agent.agentId, 150_000_000n);
    const ok = await api("POST", `/api/verifications/${v.id}/verify-stake`);
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    const verified = ok.body.verification;
    assert.equal(verified.status, "VERIFIED");
    assert.equal(verified.actualBalance, "150000000");
    assert.equal(verified.badge, "stake-100");
    const validity = days(verified.expiresAt, verified.verifiedAt);
    assert.ok(validity >= 181 && validity <= 184, `${validity} days`);
    // stake-100 is worth 2 points.
    assert.equal((await reputation(agent.agentId)).score, 52);

    // The owner asks to withdraw 60 USDC: 90 stay locked, below the badge's 100; the expiry job lapses it.
    await faucet(owner.address, 0n, 10n ** 16n);
    const hash = await owner.wallet.writeContract({
      address: deployments.contracts.StakeVault.address,
      abi: StakeVaultAbi,
      functionName: "requestWithdrawal",
      args: [BigInt(agent.agentId), 60_000_000n],
      account: owner.account,
      chain: publicClient.chain,
    });
    await publicClient.waitForTransactionReceipt({ hash });
    await waitUntil("the indexer sees the withdrawal request", async () => {
      const r = await db.query("select pending_withdrawal::text p from chain.stake where agent_id = $1", [
        agent.agentId,
      ]);
      return r.rows[0]?.p === "60000000";
    });
    // The next expiry pass lapses the badge and recomputes the agent in the same job.
    await jobRanSince("verification-expiry", await dbNow());
    const lapsed = await db.query("select status, message from api.verification where id = $1", [v.id]);
    assert.deepEqual(lapsed.rows[0], { status: "EXPIRED", message: "the locked stake fell below the minimum" });
    assert.equal((await reputation(agent.agentId)).score, 50);

    const tooSmall = await api("POST", "/api/verifications/stake", {
      body: { agentId: agent.agentId, minStakeAmount: "99999999" },
    });
    assert.equal(tooSmall.status, 400);
    assert.equal(tooSmall.body.error.code, "STAKE_BELOW_BADGE_MINIMUM");
    const notUnits = await api("POST", "/api/verifications/stake", {
      body: { agentId: agent.agentId, minStakeAmount: "1.5" },
    });
    assert.equal(notUnits.body.error.code, "VALIDATION_ERROR");
  });

  it("badges use whole-USDC tiers: 5000 USDC is stake-5000 and only the highest stake badge counts", async () => {
    const agent = await stakedAgent(5_000_000_000n);
    for (const [min, badge] of [
      ["500000000", "stake-500"],
      ["5000000000", "stake-5000"],
    ] as const) {
      const v = (
        await api("POST", "/api/verifications/stake", { body: { agentId: agent.agentId, minStakeAmount: min } })
      ).body.verification;
      const ok = await api("POST", `/api/verifications/${v.id}/verify-stake`);
      assert.equal(ok.body.verification.badge, badge);
    }
    const rep = await reputation(agent.agentId);
    assert.deepEqual(rep.verificationBadges, ["stake-500", "stake-5000"]);
    assert.equal(rep.breakdown.verifications.badgePoints, 4, "stake-5000 only");
    assert.equal(rep.score, 54);
  });
});

describe("verifications: skill", () => {
  it("grades on the server: the client's score and passed are ignored; 80+ VERIFIED for 2 years", async () => {
    const agent = await registerAgent({ programmingLangs: ["rust"] });
    const qs = await answers("rust-coding", agent.agentId, 10);
    const res = await api("POST", "/api/verifications/skill", {
      body: {
        agentId: agent.agentId,
        skillName: "rust-coding",
        attemptId: qs.attemptId,
        testResults: { score: 0, passed: false, questions: qs.questions },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const v = res.body.verification;
    assert.equal(v.status, "VERIFIED");
    assert.equal(v.skillName, "rust-coding");
    assert.equal(v.score, 100);
    assert.equal(v.badge, "skill-rust-coding");
    const validity = days(v.expiresAt, v.verifiedAt);
    assert.ok(validity >= 730 && validity <= 731, `${validity} days`);
    const rep = await reputation(agent.agentId);
    assert.deepEqual(rep.verificationBadges, ["skill-rust-coding"]);
    assert.equal(rep.score, 53);
    // codingScore: 0.6 x 0.5 (no runs yet) + 0.4 x 1.0 (the test) = 70
    assert.equal(rep.codingScore, 70);

    // A retake within 24 hours is refused.
    const retake = await answers("rust-coding", agent.agentId, 10);
    const again = await api("POST", "/api/verifications/skill", {
      body: {
        agentId: agent.agentId,
        skillName: "rust-coding",
        attemptId: retake.attemptId,
        testResults: { score: 100, passed: true, questions: retake.questions },
      },
    });
    assert.equal(again.status, 429);
    assert.equal(again.body.error.code, "SKILL_RETAKE_TOO_SOON");
    assert.ok(Number(again.headers.get("retry-after")) > 0);
  });

  it("below 80 is FAILED with a message and 400 SKILL_TEST_FAILED, whatever the client claims; the best score counts", async () => {
    const agent = await registerAgent({ capabilities: ["data-analysis"] });
    const seven = await answers("python-data", agent.agentId, 7);
    const failed = await api("POST", "/api/verifications/skill", {
      body: {
        agentId: agent.agentId,
        skillName: "python-data",
        attemptId: seven.attemptId,
        testResults: { score: 100, passed: true, questions: seven.questions },
      },
    });
    assert.equal(failed.status, 400);
    assert.equal(failed.body.error.code, "SKILL_TEST_FAILED");
    assert.equal(failed.body.verification.status, "FAILED");
    assert.equal(failed.body.verification.score, 70);
    assert.equal(failed.body.verification.badge, undefined);
    assert.ok(failed.body.verification.message.includes("70"));
    assert.deepEqual((await reputation(agent.agentId)).verificationBadges, []);

    await increaseTime(DAY + 60);
    const nine = await answers("python-data", agent.agentId, 9);
    const passed = await api("POST", "/api/verifications/skill", {
      body: {
        agentId: agent.agentId,
        skillName: "python-data",
        attemptId: nine.attemptId,
        testResults: { score: 0, passed: false, questions: nine.questions },
      },
    });
    assert.equal(passed.status, 201);
    assert.equal(passed.body.verification.score, 90);

    await increaseTime(DAY + 60);
    const eight = await answers("python-data", agent.agentId, 8);
    const lower = await api("POST", "/api/verifications/skill", {
      body: {
        agentId: agent.agentId,
        skillName: "python-data",
        attemptId: eight.attemptId,
        testResults: { score: 0, passed: false, questions: eight.questions },
      },
    });
    assert.equal(lower.status, 201);
    assert.equal(lower.body.verification.score, 80);
    // researchScore uses the best verified score: 0.6 x 0.5 + 0.4 x 0.9 = 66
    const rep = await reputation(agent.agentId);
    assert.equal(rep.researchScore, 66);
    assert.deepEqual(rep.verificationBadges, ["skill-python-data"]);

    const list = await api("GET", `/api/verifications/agent/${agent.agentId}`);
    assert.equal(list.status, 200);
    assert.deepEqual(
      list.body.verifications.map((v: any) => [v.status, v.score]),
      [
        ["VERIFIED", 80],
        ["VERIFIED", 90],
        ["FAILED", 70],
      ],
    );
  });

  it("answers are graded against the attempt drawn; a copied key, another attempt or a reused one does not pass", async () => {
    const agent = await registerAgent();
    const submit = (attemptId: string, questions: { question: string; answer: string }[], agentId = agent.agentId) =>
      api("POST", "/api/verifications/skill", {
        body: {
          agentId,
          skillName: "solidity-security",
          attemptId,
          testResults: { score: 100, passed: true, questions },
        },
      });
    // Duplicates count once, unknown questions not at all.
    const drawn = await answers("solidity-security", agent.agentId, 10);
    const first = drawn.questions[0]!;
    const padded = [...Array.from({ length: 10 }, () => first), { question: "What is 2 + 2?", answer: "4" }];
    const res = await submit(drawn.attemptId, padded);
    assert.equal(res.status, 400);
    assert.equal(res.body.verification.score, 10);
    // The attempt is spent.
    const reused = await submit(drawn.attemptId, drawn.questions);
    assert.equal(reused.body.error.code, "INVALID_SKILL_ATTEMPT");

    await increaseTime(DAY + 60);
    // The answer key in the public source, plus another attempt's right answers: not enough for a fresh attempt.
    const { QUESTION_BANK } = await import("@agenthub/api/domain/skills");
    const copied = [
      ...QUESTION_BANK["solidity-security"].map((q: { question: string; answer: string }) => ({
        question: q.question,
        answer: q.answer,
      })),
      ...(await answers("solidity-security", agent.agentId, 10)).questions,
    ];
    const fresh = await drawAttempt("solidity-security", agent.agentId);
    const cheat = await submit(fresh.attemptId, copied);
    assert.equal(cheat.status, 400, JSON.stringify(cheat.body));
    assert.equal(cheat.body.error.code, "SKILL_TEST_FAILED");
    assert.ok(cheat.body.verification.score < 80, `copied key scored ${cheat.body.verification.score}`);

    // An attempt drawn for another agent, or unknown, is refused before grading.
    const other = await registerAgent();
    const theirs = await answers("solidity-security", other.agentId, 10);
    const stolen = await submit(theirs.attemptId, theirs.questions);
    assert.equal(stolen.body.error.code, "INVALID_SKILL_ATTEMPT");
    assert.equal((await submit("att_unknown", [])).body.error.code, "INVALID_SKILL_ATTEMPT");

    const unknown = await api("POST", "/api/verifications/skill", {
      body: {
        agentId: agent.agentId,
        skillName: "cooking",
        attemptId: "att_x",
        testResults: { score: 100, passed: true, questions: [] },
      },
    });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.body.error.code, "UNKNOWN_SKILL");
    const cooking = await api("POST", "/api/verifications/skill/cooking/attempts", {
      body: { agentId: agent.agentId },
    });
    assert.equal(cooking.body.error.code, "UNKNOWN_SKILL");
    const qs = (await drawAttempt("typescript-testing", agent.agentId)).questions;
    assert.equal(qs.length, 10);
    assert.ok(qs.every((q) => q.options.length === 4 && !("answer" in q)));
    const noAgent = await submit("att_x", [], 987654321);
    assert.equal(noAgent.body.error.code, "AGENT_NOT_FOUND");
    assert.equal((await api("GET", "/api/verifications/agent/987654321")).body.error.code, "AGENT_NOT_FOUND");
  });
});

describe("verifications: expiry", () => {
  it("the expiry job moves VERIFIED past expiresAt to EXPIRED and recomputes; verify then answers VERIFICATION_EXPIRED", async () => {
    const agent = await stakedAgent(100_000_000n);
    const v = (
      await api("POST", "/api/verifications/stake", { body: { agentId: agent.agentId, minStakeAmount: "100000000" } })
    ).body.verification;
    assert.equal((await api("POST", `/api/verifications/${v.id}/verify-stake`)).status, 200);
    assert.equal((await reputation(agent.agentId)).score, 52);
    const pending = (
      await api("POST", "/api/verifications/domain", { body: { agentId: agent.agentId, domain: domainName() } })
    ).body.verification;

    await increaseTime(184 * DAY);
    await waitUntil("the expiry job", async () => {
      const r = await db.query("select status from api.verification where id = $1", [v.id]);
      return r.rows[0].status === "EXPIRED";
    });
    const rep = await waitUntil("recomputed reputation", async () => {
      const r = await reputation(agent.agentId);
      return r.verificationBadges.length === 0 ? r : undefined;
    });
    assert.equal(rep.breakdown.verifications.badgePoints, 0);
    const list = (await api("GET", `/api/verifications/agent/${agent.agentId}`)).body.verifications;
    assert.deepEqual(list.map((x: any) => x.status).sort(), ["EXPIRED", "EXPIRED"]);
    assert.equal(list.find((x: any) => x.id === v.id).badge, "stake-100", "an expired record keeps its badge name");

    const renew = await api("POST", `/api/verifications/${v.id}/verify-stake`);
    assert.equal(renew.status, 400);
    assert.equal(renew.body.error.code, "VERIFICATION_EXPIRED");
    const stale = await api("POST", `/api/verifications/${pending.id}/verify`);
    assert.equal(stale.body.error.code, "VERIFICATION_EXPIRED");
  });
});

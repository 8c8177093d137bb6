import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  attestationScore,
  attestationWeight,
  computeReputation,
  computeScores,
  fromStoredInputs,
  isStoredInputs,
  type ReputationInputs,
  responseScoreFor,
  stakeBadge,
  toStoredInputs,
  verificationPoints,
} from "../src/domain/reputation.ts";
import { type DrawnQuestion, drawQuestions, gradeAttempt } from "../src/domain/skill-attempts.ts";
import { QUESTION_BANK } from "../src/domain/skills.ts";
import { checkEndpoint } from "../src/lib/net/health-check.ts";
import { addressAllowed, classifyAddress } from "../src/lib/net/ssrf.ts";
import { windowStartDay } from "../src/stores/reputation-recompute.ts";

const DAY = 86_400n;
const NOW = 1_800_000_000n;

/** A freshly registered agent: no runs, no checks, no attestations, no badges. */
const fresh = (over: Partial<ReputationInputs> = {}): ReputationInputs => ({
  now: NOW,
  registeredAt: NOW - 60n,
  totalClaimed: 0,
  completions: 0,
  failures: 0,
  capabilities: [],
  programmingLangs: [],
  checks: 0,
  ups: 0,
  latencySumMs: 0,
  attestationCount: 0,
  attestationWeightedSum: 0,
  attestationWeightSum: 0,
  expertiseWeightedSum: 0,
  expertiseWeightSum: 0,
  badges: [],
  skillScores: {},
  ...over,
});

describe("reputation formula (spec §8)", () => {
  it("a new agent starts at 50: 0.5 x 0.4 + 1 x 0.2 + 1 x 0.1 + 0 + 0", () => {
    const r = computeReputation(fresh());
    assert.equal(r.score, 50);
    assert.equal(r.components.successRate.basis, "prior");
    assert.equal(r.components.uptime.basis, "new-agent-grace");
    assert.equal(r.components.responseTime.basis, "new-agent-grace");
    assert.equal(r.attestationScore, 0);
    assert.equal(r.uptimePercentage, 0, "no check observed yet: the reported uptime is the measured 0");
  });

  it("worked example: 8/10 runs, 95% up at 150 ms, attestations 4.2, domain + stake-500 -> 82.8", () => {
    // (0.8 x 0.4 + 0.95 x 0.2 + 0.9 x 0.1 + 4.2/5 x 0.2 + 6/10 x 0.1) x 100 = (0.32+0.19+0.09+0.168+0.06) x 100
    const r = computeReputation(
      fresh({
        totalClaimed: 10,
        completions: 8,
        failures: 2,
        checks: 100,
        ups: 95,
        latencySumMs: 95 * 150,
        attestationCount: 2,
        attestationWeightedSum: 4.2 * 2,
        attestationWeightSum: 2,
        badges: ["domain-verified", "stake-500"],
      }),
    );
    assert.equal(r.score, 82.8);
    assert.equal(r.successRate, 0.8);
    assert.equal(r.uptimePercentage, 95);
    assert.equal(r.avgResponseTimeMs, 150);
    assert.equal(r.components.responseTime.value, 0.9);
    assert.equal(r.verificationPoints, 6);
    // The breakdown adds up to the score.
    const c = r.components;
    const sum =
      c.successRate.points + c.uptime.points + c.responseTime.points + c.attestations.points + c.verifications.points;
    assert.equal(Math.round(sum * 100) / 100, r.score);
    assert.deepEqual(
      [c.successRate.points, c.uptime.points, c.responseTime.points, c.attestations.points, c.verifications.points],
      [32, 19, 9, 16.8, 6],
    );
  });

  it("a perfect agent scores 100 and a dead one with failed runs 0", () => {
    const perfect = computeReputation(
      fresh({
        totalClaimed: 3,
        completions: 3,
        checks: 10,
        ups: 10,
        latencySumMs: 500,
        attestationCount: 1,
        attestationWeightedSum: 10,
        attestationWeightSum: 2,
        badges: ["domain-verified", "stake-5000", "skill-rust-coding"],
      }),
    );
    assert.equal(perfect.score, 100);
    const dead = computeReputation(fresh({ totalClaimed: 2, failures: 2, checks: 5, ups: 0 }));
    assert.equal(dead.score, 0);
    assert.equal(dead.components.responseTime.basis, "no-data");
  });

  it("successRate is completions / totalClaimed (a claimed run in progress counts against it)", () => {
    assert.equal(computeReputation(fresh({ totalClaimed: 4, completions: 3 })).successRate, 0.75);
    // 0.75 x 0.4 + 0.2 + 0.1 = 0.6
    assert.equal(computeReputation(fresh({ totalClaimed: 4, completions: 3 })).score, 60);
    assert.equal(computeReputation(fresh({ totalClaimed: 1 })).score, 30);
  });

  it("after the 30-day grace an agent never checked loses uptime and response: 0.5 x 0.4 -> 20", () => {
    const old = computeReputation(fresh({ registeredAt: NOW - 30n * DAY }));
    assert.equal(old.score, 20);
    assert.equal(old.components.uptime.basis, "no-data");
    const stillYoung = computeReputation(fresh({ registeredAt: NOW - 30n * DAY + 1n }));
    assert.equal(stillYoung.score, 50);
  });

  it("uptime counts every check; response time only the successful ones", () => {
    // 3 of 4 up, successful latencies 40+60+80 -> avg 60 ms -> 1.0; 0.5x0.4 + 0.75x0.2 + 1x0.1 = 0.45
    const r = computeReputation(fresh({ checks: 4, ups: 3, latencySumMs: 180 }));
    assert.equal(r.uptimePercentage, 75);
    assert.equal(r.avgResponseTimeMs, 60);
    assert.equal(r.score, 45);
  });
});

describe("responseScore bands", () => {
  it("<100 1.0, 100-200 0.9, 200-500 0.7, 500-1000 0.5, >1000 0.2", () => {
    const cases: [number, number][] = [
      [0, 1],
      [99.9, 1],
      [100, 0.9],
      [199, 0.9],
      [200, 0.7],
      [499, 0.7],
      [500, 0.5],
      [1000, 0.5],
      [1000.5, 0.2],
      [9000, 0.2],
    ];
    for (const [ms, want] of cases) assert.equal(responseScoreFor(ms), want, `${ms} ms`);
  });
});

describe("attestations", () => {
  it("weight from the attestor's reputation: >=80 2.0, >=60 1.5, >=40 1.2, >=20 1.0, else 0.5", () => {
    const cases: [number, number][] = [
      [100, 2],
      [80, 2],
      [79.99, 1.5],
      [60, 1.5],
      [59.9, 1.2],
      [50, 1.2],
      [40, 1.2],
      [39.99, 1],
      [20, 1],
      [19.99, 0.5],
      [0, 0.5],
    ];
    for (const [score, want] of cases) assert.equal(attestationWeight(score), want, `score ${score}`);
  });

  it("attestationScore = sum(rating x weight) / sum(weight), 0 when there are none", () => {
    assert.equal(attestationScore([]), 0);
    // a 5 from an 85-reputation attestor (2.0) and a 3 from a new agent (50 -> 1.2): (10 + 3.6) / 3.2 = 4.25
    assert.equal(
      attestationScore([
        { rating: 5, weight: attestationWeight(85) },
        { rating: 3, weight: attestationWeight(50) },
      ]),
      4.25,
    );
    assert.equal(attestationScore([{ rating: 2, weight: 0.5 }]), 2);
  });
});

describe("verification badges", () => {
  it("stake badges are named in whole USDC tiers 100/500/1000/5000", () => {
    assert.equal(stakeBadge(99_999_999n), null);
    assert.equal(stakeBadge(100_000_000n), "stake-100");
    assert.equal(stakeBadge(499_999_999n), "stake-100");
    assert.equal(stakeBadge(500_000_000n), "stake-500");
    assert.equal(stakeBadge(4_999_999_999n), "stake-1000");
    assert.equal(stakeBadge(5_000_000_000n), "stake-5000");
    assert.equal(stakeBadge(10n ** 15n), "stake-5000");
  });

  it("points: domain 3, stake 2/3/4/4, skill 3; highest stake only; capped at 10", () => {
    assert.equal(verificationPoints([]).points, 0);
    assert.equal(verificationPoints(["domain-verified"]).points, 3);
    assert.equal(verificationPoints(["stake-100"]).points, 2);
    assert.equal(verificationPoints(["stake-100", "stake-500"]).points, 3);
    assert.equal(verificationPoints(["stake-1000"]).points, 4);
    assert.equal(verificationPoints(["stake-5000", "stake-1000"]).points, 4);
    assert.equal(verificationPoints(["skill-rust-coding", "skill-python-data"]).points, 6);
    assert.equal(verificationPoints(["domain-verified", "domain-verified"]).points, 3);
    // 3 + 4 + 3 + 3 = 13 -> 10
    assert.equal(
      verificationPoints(["domain-verified", "stake-5000", "skill-rust-coding", "skill-python-data"]).points,
      10,
    );
    // verificationScore = points / 10, weighted 0.1: 6 points add 6 to a new agent's 50
    assert.equal(computeReputation(fresh({ badges: ["domain-verified", "skill-rust-coding"] })).score, 56);
  });
});

describe("capability scores", () => {
  it("0 when not declared, 50 for a new agent that declares it, skill tests and expertise as evidence", () => {
    const none = computeReputation(fresh());
    assert.deepEqual([none.codingScore, none.researchScore, none.contentScore], [0, 0, 0]);

    const declared = computeReputation(fresh({ capabilities: ["code-review", "research", "copywriting"] }));
    assert.deepEqual([declared.codingScore, declared.researchScore, declared.contentScore], [50, 50, 50]);

    // Programming languages declare coding; a rust-coding test at 90 is the evidence: 0.6 x 0.5 + 0.4 x 0.9 = 0.66
    const coder = computeReputation(fresh({ programmingLangs: ["rust"], skillScores: { "rust-coding": 90 } }));
    assert.equal(coder.codingScore, 66);
    assert.equal(coder.researchScore, 0);

    // python-data counts for research too; 4/4 runs completed: 0.6 x 1 + 0.4 x 0.85 = 0.94
    const analyst = computeReputation(fresh({ totalClaimed: 4, completions: 4, skillScores: { "python-data": 85 } }));
    assert.equal(analyst.researchScore, 94);
    assert.equal(analyst.codingScore, 94);

    // Expertise attestations (4.5 average) are the evidence where no skill test exists: 0.6 x 0.5 + 0.4 x 0.9
    const writer = computeReputation(
      fresh({ capabilities: ["writing"], expertiseWeightedSum: 9, expertiseWeightSum: 2 }),
    );
    assert.equal(writer.contentScore, 66);
  });
});

describe("uptime window", () => {
  it("covers the last 30 UTC days, today included", () => {
    // 2027-01-15T08:00:00Z -> window from 2026-12-17
    const now = BigInt(Date.UTC(2027, 0, 15, 8) / 1000);
    assert.equal(windowStartDay(now), "2026-12-17");
  });
});

describe("bulk scores", () => {
  it("computeScores gives exactly computeReputation's figures (without the breakdown)", () => {
    for (const inputs of [
      fresh(),
      fresh({ totalClaimed: 7, completions: 5, checks: 20, ups: 17, latencySumMs: 17 * 230, badges: ["stake-100"] }),
      fresh({
        capabilities: ["Writing"],
        expertiseWeightedSum: 6,
        expertiseWeightSum: 1.5,
        registeredAt: NOW - 40n * DAY,
      }),
      fresh({
        programmingLangs: ["go"],
        skillScores: { "python-data": 95 },
        attestationWeightSum: 1,
        attestationWeightedSum: 3,
      }),
    ]) {
      const { components: _components, ...figures } = computeReputation(inputs);
      assert.deepEqual(computeScores(inputs), figures);
    }
  });
});

describe("stored inputs", () => {
  it("round-trip: the breakdown rebuilt from stored inputs equals the original", () => {
    const inputs = fresh({
      totalClaimed: 5,
      completions: 4,
      checks: 10,
      ups: 9,
      latencySumMs: 900,
      badges: ["stake-500"],
      skillScores: { "rust-coding": 85 },
      capabilities: ["coding"],
    });
    const stored = JSON.parse(JSON.stringify(toStoredInputs(inputs)));
    assert.ok(isStoredInputs(stored));
    assert.deepEqual(computeReputation(fromStoredInputs(stored)), computeReputation(inputs));
  });
});

describe("uptime target guard (SSRF)", () => {
  it("classifies loopback, private, link-local, reserved and public addresses, also inside IPv6", () => {
    const cases: [string, string][] = [
      ["127.0.0.1", "loopback"],
      ["127.255.0.9", "loopback"],
      ["::1", "loopback"],
      ["[::1]", "loopback"],
      ["::ffff:127.0.0.1", "loopback"],
      ["::ffff:7f00:1", "loopback"],
      ["10.1.2.3", "private"],
      ["172.16.0.1", "private"],
      ["172.31.255.255", "private"],
      ["192.168.1.1", "private"],
      ["100.64.0.1", "private"],
      ["fd00::1", "private"],
      ["169.254.169.254", "link-local"],
      ["fe80::1", "link-local"],
      ["::ffff:169.254.169.254", "link-local"],
      ["64:ff9b::a9fe:a9fe", "link-local"],
      ["0.0.0.0", "reserved"],
      ["::", "reserved"],
      ["224.0.0.1", "reserved"],
      ["255.255.255.255", "reserved"],
      ["not-an-ip", "reserved"],
      ["8.8.8.8", "public"],
      ["172.32.0.1", "public"],
      ["2606:4700:4700::1111", "public"],
    ];
    for (const [ip, want] of cases) assert.equal(classifyAddress(ip), want, ip);
  });

  it("allows loopback and private only in local mode; link-local and reserved never", () => {
    assert.equal(addressAllowed("public", false), true);
    for (const cls of ["loopback", "private", "link-local", "reserved"] as const) {
      assert.equal(addressAllowed(cls, false), false, cls);
    }
    assert.equal(addressAllowed("loopback", true), true);
    assert.equal(addressAllowed("private", true), true);
    assert.equal(addressAllowed("link-local", true), false);
    assert.equal(addressAllowed("reserved", true), false);
  });

  it("refuses before connecting: a blocked literal never gets a request", async () => {
    const res = await checkEndpoint("http://169.254.169.254/latest/meta-data/", {
      timeoutMs: 1000,
      allowPrivate: true,
    });
    assert.deepEqual([res.up, res.error], [false, "BLOCKED_TARGET"]);
    const local = await checkEndpoint("http://127.0.0.1:9/", { timeoutMs: 1000, allowPrivate: false });
    assert.equal(local.error, "BLOCKED_TARGET");
    assert.equal(
      (await checkEndpoint("ftp://example.com/", { timeoutMs: 1000, allowPrivate: false })).error,
      "UNSUPPORTED_SCHEME",
    );
  });
});

describe("skill tests drawn per attempt", () => {
  const skills = Object.keys(QUESTION_BANK) as (keyof typeof QUESTION_BANK)[];
  const key = (drawn: DrawnQuestion[]) => drawn.map((q) => ({ question: q.question, answer: q.answer }));

  it("draws 10 questions with 4 distinct options each, the answer among them", () => {
    for (const skill of skills) {
      const drawn = drawQuestions(skill);
      assert.equal(drawn.length, 10, skill);
      for (const q of drawn) {
        assert.equal(new Set(q.options).size, 4, q.question);
        assert.ok(q.options.includes(q.answer), q.question);
      }
    }
  });

  it("grades against the attempt's own questions: case and spacing ignored, duplicates once, strangers ignored", () => {
    const drawn = drawQuestions("rust-coding");
    const all = key(drawn);
    assert.equal(gradeAttempt(drawn, all).score, 100);
    const loose = all.map((a) => ({
      question: `  ${a.question.toUpperCase()} `,
      answer: ` ${a.answer.toUpperCase()}`,
    }));
    assert.equal(gradeAttempt(drawn, loose).score, 100);
    const eight = all.map((a, i) => (i < 8 ? a : { ...a, answer: "wrong" }));
    assert.deepEqual([gradeAttempt(drawn, eight).score, gradeAttempt(drawn, eight).correct], [80, 8]);
    assert.equal(
      gradeAttempt(
        drawn,
        [...Array(10)].map(() => all[0]!),
      ).score,
      10,
    );
    assert.equal(gradeAttempt(drawn, [{ question: "What is 2 + 2?", answer: "4" }]).score, 0);
  });

  it("a copied answer key does not pass: neither the bank from the source nor another attempt's answers", () => {
    for (const skill of skills) {
      const bankKey = QUESTION_BANK[skill].map((q) => ({ question: q.question, answer: q.answer }));
      for (let i = 0; i < 20; i++) {
        const drawn = drawQuestions(skill);
        assert.ok(gradeAttempt(drawn, bankKey).score <= 40, `${skill}: the source's key scores at most 4/10`);
        const other = key(drawQuestions(skill));
        assert.ok(gradeAttempt(drawn, [...bankKey, ...other]).score < 80, `${skill}: another attempt's key fails`);
      }
    }
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  computeRisk,
  parseCategory,
  REPORT_CATEGORIES,
  type RiskReport,
  reportWeight,
} from "../src/domain/report-risk.ts";

const DAY = 86_400;
const NOW = 1_800_000_000;
const report = (over: Partial<RiskReport> = {}): RiskReport => ({
  category: "SPAM",
  status: "PENDING",
  reporter: "0xaaa",
  reporterKind: "SIGNED",
  filedAt: NOW,
  ...over,
});

describe("report categories", () => {
  it("parses case-insensitively and rejects anything else", () => {
    assert.equal(parseCategory(" spam "), "SPAM");
    assert.equal(parseCategory("Non_Delivery"), "NON_DELIVERY");
    assert.equal(parseCategory("SCAM"), undefined);
    assert.equal(parseCategory(""), undefined);
    assert.deepEqual([...REPORT_CATEGORIES], ["SPAM", "FRAUD", "MALICIOUS", "IMPERSONATION", "NON_DELIVERY", "OTHER"]);
  });
});

describe("risk formula", () => {
  it("no reports: ACTIVE with score 0", () => {
    assert.deepEqual(computeRisk([], NOW, "PROVISIONAL"), { riskScore: 0, status: "ACTIVE", weight: 0, confirmed: 0 });
  });

  it("weights category x status x reporter x recency", () => {
    assert.equal(reportWeight(report(), NOW), 1);
    assert.equal(reportWeight(report({ category: "FRAUD" }), NOW), 3);
    assert.equal(reportWeight(report({ category: "FRAUD", status: "CONFIRMED" }), NOW), 12);
    assert.equal(reportWeight(report({ reporterKind: "STAKED" }), NOW), 2);
    assert.equal(reportWeight(report({ reporterKind: "ANONYMOUS" }), NOW), 0.5);
    assert.equal(reportWeight(report({ status: "DISMISSED", category: "FRAUD" }), NOW), 0);
    // Pending reports halve every 30 days, confirmed ones every 180 days; future filings count as fresh.
    assert.equal(reportWeight(report({ filedAt: NOW - 30 * DAY }), NOW), 0.5);
    assert.equal(reportWeight(report({ status: "CONFIRMED", filedAt: NOW - 180 * DAY }), NOW), 2);
    assert.equal(reportWeight(report({ filedAt: NOW + DAY }), NOW), 1);
  });

  it("one low-severity pending report keeps the agent ACTIVE", () => {
    const r = computeRisk([report()], NOW, "PROVISIONAL");
    assert.equal(r.riskScore, 10); // 100 * (1 - e^-0.1)
    assert.equal(r.status, "ACTIVE");
  });

  it("counts distinct reporters: one reporter's many reports weigh as its heaviest one", () => {
    const one = computeRisk(
      [report(), report({ category: "OTHER" }), report({ category: "FRAUD" }), report({ category: "NON_DELIVERY" })],
      NOW,
    );
    assert.equal(one.weight, 3);
    assert.equal(one.riskScore, 26);
    const three = computeRisk(
      [report({ reporter: "0x1" }), report({ reporter: "0x2" }), report({ reporter: "0x3" })],
      NOW,
    );
    assert.equal(three.weight, 3);
    assert.equal(three.status, "UNDER_REVIEW");
  });

  it("a severe pending report puts the agent UNDER_REVIEW; pending reports alone never RESTRICT", () => {
    assert.equal(computeRisk([report({ category: "FRAUD" })], NOW).status, "UNDER_REVIEW");
    const many = Array.from({ length: 8 }, (_, i) =>
      report({ category: "FRAUD", reporter: `0x${i}`, reporterKind: "STAKED" }),
    );
    const r = computeRisk(many, NOW);
    assert.ok(r.riskScore >= 99, String(r.riskScore));
    assert.equal(r.status, "UNDER_REVIEW");
  });

  it("a confirmed FRAUD report RESTRICTS; dismissing it brings the agent back to ACTIVE", () => {
    const confirmed = computeRisk([report({ category: "FRAUD", status: "CONFIRMED" })], NOW, "PROVISIONAL");
    assert.equal(confirmed.riskScore, 70);
    assert.equal(confirmed.status, "RESTRICTED");
    const dismissed = computeRisk([report({ category: "FRAUD", status: "DISMISSED" })], NOW, "PROVISIONAL");
    assert.deepEqual(dismissed, { riskScore: 0, status: "ACTIVE", weight: 0, confirmed: 0 });
  });

  it("a confirmed SPAM report is UNDER_REVIEW; it decays back to ACTIVE over time", () => {
    const reports = [report({ status: "CONFIRMED" })];
    assert.equal(computeRisk(reports, NOW).status, "UNDER_REVIEW"); // weight 4 -> 33
    assert.equal(computeRisk(reports, NOW + 180 * DAY).status, "ACTIVE"); // weight 2 -> 18
  });

  it("staked reporters weigh double, anonymous (IP-only) reporters half", () => {
    assert.equal(computeRisk([report({ reporterKind: "STAKED", category: "IMPERSONATION" })], NOW).riskScore, 33);
    assert.equal(computeRisk([report({ reporterKind: "ANONYMOUS", category: "IMPERSONATION" })], NOW).riskScore, 10);
  });

  it("the chain-derived status wins: FROZEN and BANNED agents show it whatever the reports say", () => {
    assert.equal(computeRisk([], NOW, "FROZEN").status, "FROZEN");
    const r = computeRisk([report({ category: "FRAUD", status: "CONFIRMED" })], NOW, "BANNED");
    assert.equal(r.status, "BANNED");
    assert.equal(r.riskScore, 70);
    assert.equal(computeRisk([], NOW, "UNVERIFIED").status, "ACTIVE");
  });

  it("is deterministic and order-independent", () => {
    const reports = [
      report({ reporter: "0x1", category: "FRAUD", status: "CONFIRMED", filedAt: NOW - 10 * DAY }),
      report({ reporter: "0x2", reporterKind: "STAKED" }),
      report({ reporter: "ip:1.2.3.4", reporterKind: "ANONYMOUS", category: "MALICIOUS" }),
    ];
    assert.deepEqual(computeRisk(reports, NOW), computeRisk([...reports].reverse(), NOW));
  });
});

// Reports API against the real stack: SIWE-signed reports, the reporter's own list, counts, risk status and score
// (pending -> confirmed / dismissed, staked reporters, decay on chain time, FROZEN from the chain), the core's
// anonymous report endpoint sharing the table, every error code, rate limits and 10 concurrent duplicates.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Address, Hex } from "viem";
import { claimAgent, registerAgent, signedAction, stakedAgent } from "../support/agents.ts";
import { adminHeaders, createDraft } from "../support/runs.ts";
import { type ApiResponse, api, freshIp, increaseTime, newWallet, waitUntil } from "../support/stack.ts";

const code = (res: { body: { error?: { code: string } } }) => res.body?.error?.code;
const EVIDENCE = "The agent sent 40 unsolicited messages to my endpoint within a minute.";

async function report(
  key: Hex,
  subjectAgentId: number,
  extra: Record<string, unknown> = {},
  opts: { ip?: string; signFor?: number } = {},
) {
  const signed = await signedAction(key, "report", "agent", opts.signFor ?? subjectAgentId);
  return api("POST", "/api/reports/create", {
    body: { subjectAgentId, category: "SPAM", evidence: EVIDENCE, ...signed, ...extra },
    ip: opts.ip,
  });
}

async function mine(key: Hex, address: Address) {
  const signed = await signedAction(key, "list-reports", "reporter", address);
  const q = new URLSearchParams(signed).toString();
  return { res: await api("GET", `/api/reports/mine?${q}`), q };
}

const risk = async (agentId: number) => {
  const res = await api("GET", `/api/reports/agent/${agentId}/status`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body as { agentId: number; status: string; riskScore: number; chainStatus: string; pending: number };
};

const resolve = (reportId: number, status: string, headers: Record<string, string> = adminHeaders()) =>
  api("PATCH", `/api/reports/${reportId}`, { headers, body: { status, note: "reviewed" } });

describe("reports", () => {
  it("files a signed report, counts it, lists it for its reporter only, and keeps one vocabulary with the core", async () => {
    const subject = await registerAgent();
    const reporter = newWallet();
    const created = await report(reporter.key, subject.agentId, { category: "spam" });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.body.status, "PENDING");
    assert.equal(created.body.category, "SPAM");
    assert.equal(created.body.subjectAgentId, subject.agentId);
    assert.equal(typeof created.body.reportId, "number");
    assert.equal(typeof created.body.message, "string");

    const count = await api("GET", `/api/reports/agent/${subject.agentId}/count`);
    assert.equal(count.status, 200);
    assert.deepEqual(count.body, {
      agentId: subject.agentId,
      reportCount: 1,
      status: "ACTIVE",
      pending: 1,
      confirmed: 0,
      dismissed: 0,
    });
    const status = await risk(subject.agentId);
    assert.deepEqual(
      { status: status.status, riskScore: status.riskScore, chainStatus: status.chainStatus },
      { status: "ACTIVE", riskScore: 10, chainStatus: "UNVERIFIED" },
    );

    // The core's anonymous endpoint writes the same table with the same categories.
    const core = await api("POST", `/api/agents/${subject.agentId}/report`, {
      body: { reason: "impersonation", details: "Uses another agent's name and logo." },
    });
    assert.equal(core.status, 201, JSON.stringify(core.body));
    const count2 = await api("GET", `/api/reports/agent/${subject.agentId}/count`);
    assert.equal(count2.body.reportCount, 2);
    const profile = await api("GET", `/api/agents/${subject.agentId}`);
    assert.equal(profile.body.reportCount, 2);
    // SIGNED SPAM (1) + ANONYMOUS IMPERSONATION (2 x 0.5) = 2 -> 18
    assert.equal((await risk(subject.agentId)).riskScore, 18);

    const { res: list, q } = await mine(reporter.key, reporter.address);
    assert.equal(list.status, 200, JSON.stringify(list.body));
    assert.equal(list.body.reporter, reporter.address);
    assert.equal(list.body.total, 1);
    assert.deepEqual(Object.keys(list.body.reports[0]).sort(), [
      "bountyId",
      "category",
      "createdAt",
      "evidence",
      "reportId",
      "resolvedAt",
      "status",
      "subjectAgentId",
    ]);
    assert.deepEqual(list.body.reports[0], {
      reportId: created.body.reportId,
      subjectAgentId: subject.agentId,
      category: "SPAM",
      evidence: EVIDENCE,
      bountyId: null,
      status: "PENDING",
      createdAt: created.body.createdAt,
      resolvedAt: null,
    });
    // The nonce is single-use.
    const replay = await api("GET", `/api/reports/mine?${q}`);
    assert.equal(replay.status, 401);
    assert.equal(code(replay), "INVALID_SIGNATURE");
    // Somebody else sees only their own (none).
    const other = newWallet();
    const { res: empty } = await mine(other.key, other.address);
    assert.deepEqual(empty.body, { reporter: other.address, total: 0, reports: [] });
    // A list signature whose resource names another address is refused.
    const signed = await signedAction(other.key, "list-reports", "reporter", reporter.address);
    const forged = await api("GET", `/api/reports/mine?${new URLSearchParams(signed)}`);
    assert.equal(forged.status, 401);
    assert.equal(code(forged), "INVALID_SIGNATURE");
    const garbage = await api("GET", "/api/reports/mine?message=hello&signature=0x1234");
    assert.equal(garbage.status, 400);
    const notSiwe = await api("GET", `/api/reports/mine?message=hello&signature=0x${"ab".repeat(65)}`);
    assert.equal(notSiwe.status, 401);
    assert.equal(code(notSiwe), "INVALID_SIGNATURE");
    const missing = await api("GET", "/api/reports/mine");
    assert.equal(code(missing), "VALIDATION_ERROR");
  });

  it("rejects bad input with clear codes and never a 500", async () => {
    const subject = await registerAgent();
    const reporter = newWallet();
    const cases: [Record<string, unknown>, number, string][] = [
      [{ category: "SCAM" }, 400, "INVALID_CATEGORY"],
      [{ category: "" }, 400, "INVALID_CATEGORY"],
      [{ evidence: "   short  " }, 400, "INVALID_EVIDENCE"],
      [{ evidence: "x".repeat(4001) }, 400, "INVALID_EVIDENCE"],
      [{ evidence: "x".repeat(20000) }, 400, "VALIDATION_ERROR"],
      [{ evidence: 42 }, 400, "VALIDATION_ERROR"],
      [{ subjectAgentId: "7" }, 400, "VALIDATION_ERROR"],
      [{ subjectAgentId: 1e20 }, 400, "VALIDATION_ERROR"],
      [{ bountyId: -1 }, 400, "VALIDATION_ERROR"],
      [{ signature: "nope" }, 400, "VALIDATION_ERROR"],
      [{ subjectAgentId: 99_999_999 }, 404, "AGENT_NOT_FOUND"],
      [{ bountyId: 99_999_999 }, 404, "BOUNTY_NOT_FOUND"],
    ];
    for (const [extra, status, expected] of cases) {
      const res = await report(reporter.key, subject.agentId, extra);
      assert.equal(res.status, status, `${JSON.stringify(extra).slice(0, 80)} -> ${JSON.stringify(res.body)}`);
      assert.equal(code(res), expected);
    }
    const missing = await api("POST", "/api/reports/create", { body: { subjectAgentId: subject.agentId } });
    assert.equal(code(missing), "VALIDATION_ERROR");
    const notJson = await api("POST", "/api/reports/create", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    assert.equal(notJson.status, 400);

    // Signed for another agent, or a bad signature: 401.
    const wrongResource = await report(reporter.key, subject.agentId, {}, { signFor: subject.agentId + 1 });
    assert.equal(wrongResource.status, 401);
    assert.equal(code(wrongResource), "INVALID_SIGNATURE");
    const signed = await signedAction(reporter.key, "report", "agent", subject.agentId);
    const tampered = await api("POST", "/api/reports/create", {
      body: {
        subjectAgentId: subject.agentId,
        category: "SPAM",
        evidence: EVIDENCE,
        message: signed.message,
        signature: `0x${"11".repeat(65)}`,
      },
    });
    assert.equal(code(tampered), "INVALID_SIGNATURE");

    // Self-reports: neither the owner nor the agent's own wallet may report it.
    const { owner, agentKey } = await claimAgent(subject.agentId, subject.claimCode);
    const byOwner = await report(owner.key, subject.agentId);
    assert.equal(byOwner.status, 400);
    assert.equal(code(byOwner), "SELF_REPORT");
    const byWallet = await report(agentKey, subject.agentId);
    assert.equal(code(byWallet), "SELF_REPORT");

    // A bounty must involve the subject: posted by its owner here; another poster's run does not.
    const poster = newWallet();
    const foreign = await createDraft(poster.key, poster.address);
    assert.equal(foreign.status, 201, JSON.stringify(foreign.body));
    const mismatch = await report(reporter.key, subject.agentId, { bountyId: foreign.body.run.bountyId });
    assert.equal(mismatch.status, 400);
    assert.equal(code(mismatch), "BOUNTY_MISMATCH");
    const own = await createDraft(owner.key, owner.address);
    assert.equal(own.status, 201);
    const withBounty = await report(reporter.key, subject.agentId, {
      bountyId: own.body.run.bountyId,
      category: "NON_DELIVERY",
    });
    assert.equal(withBounty.status, 201, JSON.stringify(withBounty.body));
    const { res: list } = await mine(reporter.key, reporter.address);
    assert.equal(list.body.reports[0].bountyId, own.body.run.bountyId);

    for (const path of [`/api/reports/agent/99999999/count`, `/api/reports/agent/99999999/status`]) {
      const res = await api("GET", path);
      assert.equal(res.status, 404);
      assert.equal(code(res), "AGENT_NOT_FOUND");
    }
    for (const path of [
      "/api/reports/agent/abc/count",
      "/api/reports/agent/0/status",
      "/api/reports/agent/1e99/count",
    ]) {
      const res = await api("GET", path);
      assert.equal(res.status, 400, path);
      assert.equal(code(res), "VALIDATION_ERROR");
    }
  });

  it("10 parallel identical reports create exactly one; the reporter's rate limit then applies", async () => {
    const subject = await registerAgent();
    const reporter = newWallet();
    const signed = await Promise.all(
      Array.from({ length: 10 }, () => signedAction(reporter.key, "report", "agent", subject.agentId)),
    );
    const results = await Promise.all(
      signed.map((s) =>
        api("POST", "/api/reports/create", {
          body: { subjectAgentId: subject.agentId, category: "FRAUD", evidence: EVIDENCE, ...s },
        }),
      ),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(
      statuses,
      [201, 409, 409, 409, 409, 409, 409, 409, 409, 409],
      JSON.stringify(results.map((r) => r.body)),
    );
    for (const r of results.filter((r) => r.status === 409)) assert.equal(code(r), "DUPLICATE_REPORT");
    const count = await api("GET", `/api/reports/agent/${subject.agentId}/count`);
    assert.equal(count.body.reportCount, 1);
    // 10 attempts used this hour's allowance of 10 per reporter address (each on its own IP).
    const eleventh = await report(reporter.key, subject.agentId, { category: "OTHER" });
    assert.equal(eleventh.status, 429);
    assert.equal(code(eleventh), "RATE_LIMITED");

    // Per IP: 20 per hour, whoever signs; malformed requests (400 VALIDATION_ERROR) are not counted.
    const ip = freshIp();
    for (let i = 0; i < 25; i++) {
      const res = await api("POST", "/api/reports/create", { body: {}, ip });
      assert.equal(code(res), "VALIDATION_ERROR");
    }
    const wellFormed = {
      subjectAgentId: subject.agentId,
      category: "SPAM",
      evidence: EVIDENCE,
      message: "not a signed message",
      signature: `0x${"11".repeat(65)}`,
    };
    let limited: ApiResponse | undefined;
    for (let i = 0; i < 21 && !limited; i++) {
      const res = await api("POST", "/api/reports/create", { body: wellFormed, ip });
      if (res.status === 429) limited = res;
      else assert.equal(res.status, 401, JSON.stringify(res.body));
    }
    assert.ok(limited, "no 429 after 21 requests from one IP");
    assert.equal(code(limited), "RATE_LIMITED");
    assert.ok(limited.headers.get("retry-after"));
  });

  it("risk transitions: pending -> UNDER_REVIEW, confirmed -> RESTRICTED, dismissed -> ACTIVE, staked reporters weigh more", async () => {
    const subject = await registerAgent();
    const a = newWallet();
    const fraud = await report(a.key, subject.agentId, { category: "FRAUD" });
    assert.equal(fraud.status, 201);
    let r = await risk(subject.agentId);
    assert.deepEqual([r.status, r.riskScore, r.pending], ["UNDER_REVIEW", 26, 1]);

    // Admin review: auth, validation, not found.
    const noAuth = await resolve(fraud.body.reportId, "CONFIRMED", {});
    assert.equal(noAuth.status, 401);
    assert.equal(code(noAuth), "ADMIN_AUTH_REQUIRED");
    const badStatus = await resolve(fraud.body.reportId, "PENDING");
    assert.equal(badStatus.status, 400);
    assert.equal(code(badStatus), "VALIDATION_ERROR");
    const unknown = await resolve(99_999_999, "CONFIRMED");
    assert.equal(unknown.status, 404);
    assert.equal(code(unknown), "REPORT_NOT_FOUND");

    const confirmed = await resolve(fraud.body.reportId, "CONFIRMED");
    assert.equal(confirmed.status, 200, JSON.stringify(confirmed.body));
    assert.equal(confirmed.body.report.status, "CONFIRMED");
    assert.ok(confirmed.body.report.resolvedAt);
    assert.deepEqual([confirmed.body.agent.status, confirmed.body.agent.riskScore], ["RESTRICTED", 70]);
    r = await risk(subject.agentId);
    assert.deepEqual([r.status, r.riskScore], ["RESTRICTED", 70]);
    const again = await resolve(fraud.body.reportId, "DISMISSED");
    assert.equal(again.status, 409);
    assert.equal(code(again), "REPORT_ALREADY_RESOLVED");
    // A resolved report is no longer open: the same reporter may file the same category again.
    const second = await report(a.key, subject.agentId, { category: "FRAUD" });
    assert.equal(second.status, 201);

    // Dismissal removes a report's weight.
    const other = await registerAgent();
    const dismissMe = await report(a.key, other.agentId, { category: "MALICIOUS" });
    assert.equal((await risk(other.agentId)).status, "UNDER_REVIEW");
    const dismissed = await resolve(dismissMe.body.reportId, "DISMISSED");
    assert.equal(dismissed.status, 200);
    assert.deepEqual([dismissed.body.agent.status, dismissed.body.agent.riskScore], ["ACTIVE", 0]);
    const { res: list } = await mine(a.key, a.address);
    const row = list.body.reports.find((x: { reportId: number }) => x.reportId === dismissMe.body.reportId);
    assert.equal(row.status, "DISMISSED");
    assert.ok(row.resolvedAt);
    const count = await api("GET", `/api/reports/agent/${other.agentId}/count`);
    assert.deepEqual(count.body, {
      agentId: other.agentId,
      reportCount: 1,
      status: "ACTIVE",
      pending: 0,
      confirmed: 0,
      dismissed: 1,
    });

    // A reporter who owns a staked agent weighs double: FRAUD 3 x 2 = 6 -> 45.
    const staked = await stakedAgent();
    const third = await registerAgent();
    const byStaked = await report(staked.owner.key, third.agentId, { category: "FRAUD" });
    assert.equal(byStaked.status, 201);
    r = await risk(third.agentId);
    assert.deepEqual([r.status, r.riskScore], ["UNDER_REVIEW", 45]);
  });

  it("a FROZEN agent shows FROZEN; pending reports decay with chain time", async () => {
    const subject = await stakedAgent();
    const reporter = newWallet();
    assert.equal((await report(reporter.key, subject.agentId, { category: "FRAUD" })).status, 201);
    let r = await risk(subject.agentId);
    assert.deepEqual([r.status, r.chainStatus, r.riskScore], ["UNDER_REVIEW", "PROVISIONAL", 26]);
    const slash = await api("POST", `/api/agents/${subject.agentId}/slash`, {
      headers: adminHeaders(),
      body: { reason: "confirmed fraud", percentage: 50 },
    });
    assert.equal(slash.status, 200, JSON.stringify(slash.body));
    r = await risk(subject.agentId);
    assert.deepEqual([r.status, r.chainStatus, r.riskScore], ["FROZEN", "FROZEN", 26]);
    const count = await api("GET", `/api/reports/agent/${subject.agentId}/count`);
    assert.equal(count.body.status, "FROZEN");

    // 60 days later the unreviewed FRAUD report weighs a quarter: 0.75 -> 7.
    const fresh = await registerAgent();
    assert.equal((await report(reporter.key, fresh.agentId, { category: "FRAUD" })).status, 201);
    assert.equal((await risk(fresh.agentId)).status, "UNDER_REVIEW");
    await increaseTime(60 * 24 * 3600);
    // The API caches chain time for up to 500 ms.
    r = await waitUntil("decayed risk", async () => {
      const now = await risk(fresh.agentId);
      return now.riskScore < 26 && now;
    });
    assert.deepEqual([r.status, r.riskScore], ["ACTIVE", 7]);
  });

  it("documents every route in the OpenAPI description", async () => {
    const doc = await api("GET", "/openapi.json");
    for (const p of [
      "/api/reports/create",
      "/api/reports/mine",
      "/api/reports/agent/{agentId}/count",
      "/api/reports/agent/{agentId}/status",
      "/api/reports/{reportId}",
    ]) {
      assert.ok(doc.body.paths[p], `${p} missing`);
    }
    assert.ok(doc.body.paths["/api/reports/{reportId}"].patch);
  });
});

// Client IPs behind proxies (TRUST_PROXY = 1 in the test stack: one load balancer appends the peer it saw).
// X-Forwarded-For entries left of the trusted hops are written by the client: they must not pick the IP.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { rateKeyOf } from "@agenthub/api/lib/client-ip";
import { registerAgent } from "../support/agents.ts";
import { api, db, freshIp } from "../support/stack.ts";

after(() => db.end());

describe("client IP", () => {
  it("is the entry the trusted proxy appended (rightmost), not what the client put first", async () => {
    const { agentId } = await registerAgent();
    const real = freshIp();
    const res = await api("POST", `/api/agents/${agentId}/report`, {
      body: { reason: "SPAM", details: "client ip test" },
      headers: { "x-forwarded-for": `203.0.113.7, ${real}` },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const { rows } = await db.query("select reporter_ip from api.agent_report where id = $1", [res.body.reportId]);
    assert.equal(rows[0].reporter_ip, rateKeyOf(real)); // reporters count by their /64
  });

  it("spoofed first hops do not escape the per-IP registration limit (3 per day)", async () => {
    const real = freshIp();
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api("POST", "/api/agents/register", {
        body: { name: `spoof-${i}` },
        headers: { "x-forwarded-for": `198.51.100.${i + 1}, ${real}` },
      });
      statuses.push(res.status);
      if (res.status === 429) assert.equal(res.body.error.code, "RATE_LIMITED");
    }
    assert.deepEqual(statuses, [201, 201, 201, 429]);
  });

  it("IPv6 clients are one client per /64, and an IPv4-mapped address is its IPv4 (registration limit, 3 per day)", async () => {
    const subnet = freshIp().replace(/::1$/, "");
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await api("POST", "/api/agents/register", {
        body: { name: `v6-${i}` },
        ip: `${subnet}:${(i + 1).toString(16)}:${(0xbeef + i).toString(16)}:9:${i}`,
      });
      statuses.push(res.status);
    }
    assert.deepEqual(statuses, [201, 201, 201, 429], "four addresses of one /64 share one limit");
    const v4 = `198.18.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const mapped: number[] = [];
    for (const ip of [v4, `::ffff:${v4}`, v4, `::ffff:${v4}`]) {
      mapped.push((await api("POST", "/api/agents/register", { body: { name: "v4-mapped" }, ip })).status);
    }
    assert.deepEqual(mapped, [201, 201, 201, 429], "IPv4 and its IPv4-mapped form are one client");
  });

  it("malformed registrations from one IP use no registration slot: then 3 valid ones get 201, the 4th 429", async () => {
    const ip = freshIp();
    const register = (opts: { body?: unknown; rawBody?: string; headers?: Record<string, string> }) =>
      api("POST", "/api/agents/register", { ...opts, ip });
    const malformed = [
      register({ body: {} }), // no name
      register({ body: { name: "" } }),
      register({ body: { name: "x".repeat(5000) } }),
      register({ body: { name: "ok", capabilities: "not a list" } }),
      register({ body: { name: "ok", unknownField: true } }), // strict body
      register({ rawBody: "{not json", headers: { "content-type": "application/json" } }),
      register({ body: { name: "ok" }, headers: { "idempotency-key": "short" } }),
    ];
    for (const res of await Promise.all(malformed)) {
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.match(res.body.error.code, /^(VALIDATION_ERROR|INVALID_JSON|INVALID_IDEMPOTENCY_KEY)$/);
    }
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await register({ body: { name: `after-malformed-${i}` } });
      statuses.push(res.status);
      if (res.status === 429) assert.equal(res.body.error.code, "RATE_LIMITED");
    }
    assert.deepEqual(statuses, [201, 201, 201, 429]);
  });

  it("limits count only requests that pass validation (stake: 5 a minute, claim: 10 a minute)", async () => {
    const wellFormed = {
      amount: "20000000",
      txHash: `0x${"ab".repeat(32)}`,
      walletAddress: "0x000000000000000000000000000000000000dEaD",
    };
    // 8 malformed then 6 well-formed from one client address; the six must fall in one minute window
    // (X-RateLimit-Reset names it): a round that crosses into the next window starts over from a new address, which
    // can happen once at most.
    let statuses: number[] = [];
    for (let round = 0; round < 2; round++) {
      const ip = freshIp();
      const stake = (body: unknown) => api("POST", "/api/agents/999999/stake", { body, ip });
      for (let i = 0; i < 8; i++) {
        const bad = await stake({ amount: "lots", txHash: "0x12", walletAddress: "nope" });
        assert.equal(bad.status, 400, JSON.stringify(bad.body));
        assert.equal(bad.body.error.code, "VALIDATION_ERROR");
      }
      const answers = [];
      for (let i = 0; i < 6; i++) answers.push(await stake(wellFormed));
      statuses = answers.map((a) => a.status);
      if (new Set(answers.map((a) => a.headers.get("x-ratelimit-reset"))).size === 1) break;
    }
    assert.deepEqual(statuses, [404, 404, 404, 404, 404, 429]);

    const claimIp = freshIp();
    for (let i = 0; i < 12; i++) {
      const bad = await api("POST", "/api/agents/999999/claim", { body: { signature: "0x00" }, ip: claimIp });
      assert.equal(bad.status, 400, JSON.stringify(bad.body));
    }
  });
});

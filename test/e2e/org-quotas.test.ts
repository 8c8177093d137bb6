// Plan quotas against the real stack: API calls per month and payments per day per organization (set small here
// with the platform admin's per-organization quota, the enterprise plan's "custom" setting), counted in Postgres
// across concurrent requests, with X-RateLimit-* headers on every /api response (paid routes without a key and
// errors thrown before any limiter included) and a 429 with a stable code past the quota.

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { registerAgent } from "../support/agents.ts";
import { signPayment } from "../support/payments.ts";
import { api, db, newWallet, stack } from "../support/stack.ts";

const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const uniq = () => Math.random().toString(36).slice(2, 10);
const code = (res: { body: { error?: { code: string } } }) => res.body?.error?.code;
const SEARCH = "/api/intelligence/search";

async function createOrg(quotas: Record<string, number | null>) {
  const res = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name: `Quota ${uniq()}`, subdomain: `quota-${uniq()}` },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  const set = await api("PATCH", `/api/organizations/${res.body.id}`, { headers: admin, body: { quotas } });
  assert.equal(set.status, 200, JSON.stringify(set.body));
  return res.body as { id: string; apiKey: string; apiSecret: string };
}

const rate = (res: { headers: Headers }) => ({
  limit: res.headers.get("x-ratelimit-limit"),
  remaining: res.headers.get("x-ratelimit-remaining"),
  reset: res.headers.get("x-ratelimit-reset"),
});

const used = async (orgId: string, kind: "calls" | "payments") =>
  Number(
    (
      await db.query("select coalesce(sum(used), 0)::int n from api.org_quota where org_id = $1 and kind = $2", [
        orgId,
        kind,
      ])
    ).rows[0].n,
  );

async function pay(headers: Record<string, string>) {
  const recipient = (await api("GET", "/api/config")).body.platformRecipient;
  return api("POST", SEARCH, {
    headers: { ...headers, "x-payment": await signPayment(newWallet().account, { recipient, endpoint: SEARCH }) },
    body: { limit: 1 },
  });
}

describe("organization quotas", () => {
  it("sets quotas with the platform admin token only, validated, shown in the organization's limits", async () => {
    const o = await createOrg({ apiCallsPerMonth: 5, paymentsPerDay: 2 });
    const got = await api("GET", `/api/organizations/${o.id}`, { headers: admin });
    assert.equal(got.body.limits.apiCallsPerMonth, 5);
    assert.equal(got.body.limits.paymentsPerDay, 2);
    const byOrg = await api("PATCH", `/api/organizations/${o.id}`, {
      headers: { "x-api-key": o.apiKey, "x-api-secret": o.apiSecret },
      body: { quotas: { apiCallsPerMonth: 1_000_000 } },
    });
    assert.equal(byOrg.status, 403);
    assert.equal(code(byOrg), "ADMIN_ONLY");
    for (const quotas of [{ apiCallsPerMonth: 0 }, { paymentsPerDay: -1 }, { paymentsPerDay: "9" }, { other: 1 }]) {
      const bad = await api("PATCH", `/api/organizations/${o.id}`, { headers: admin, body: { quotas } });
      assert.equal(bad.status, 400, JSON.stringify(quotas));
      assert.equal(code(bad), "VALIDATION_ERROR");
    }
    // null: back to the plan's values (starter: 10K calls a month, 1,000 payments a day).
    const reset = await api("PATCH", `/api/organizations/${o.id}`, {
      headers: admin,
      body: { quotas: { apiCallsPerMonth: null, paymentsPerDay: null } },
    });
    assert.equal(reset.body.limits.apiCallsPerMonth, 10_000);
    assert.equal(reset.body.limits.paymentsPerDay, 1_000);
  });

  it("counts API calls per month: headers count down, then 429 API_QUOTA_EXCEEDED until the next UTC month", async () => {
    const o = await createOrg({ apiCallsPerMonth: 5 });
    const now = new Date();
    const nextMonth = String(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1) / 1000);
    const key = { "x-api-key": o.apiKey };
    for (let i = 4; i >= 0; i--) {
      const res = await api("GET", i % 2 ? "/api/agents" : `/api/organizations/${o.id}`, { headers: key });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(rate(res), { limit: "5", remaining: String(i), reset: nextMonth });
    }
    const over = await api("GET", "/api/agents", { headers: key });
    assert.equal(over.status, 429);
    assert.equal(code(over), "API_QUOTA_EXCEEDED");
    assert.deepEqual(rate(over), { limit: "5", remaining: "0", reset: nextMonth });
    assert.ok(Number(over.headers.get("retry-after")) > 0);
    assert.equal(await used(o.id, "calls"), 5); // refused calls use nothing
    // The platform admin raises the quota: calls work again at once, in every API process (it is read per request).
    await api("PATCH", `/api/organizations/${o.id}`, { headers: admin, body: { quotas: { apiCallsPerMonth: 6 } } });
    const again = await api("GET", "/api/agents", { headers: key });
    assert.equal(again.status, 200);
    assert.equal(rate(again).remaining, "0");
  });

  it("holds under concurrency: 12 parallel calls against 7 remaining let exactly 7 through", async () => {
    const o = await createOrg({ apiCallsPerMonth: 7 });
    const results = await Promise.all(
      Array.from({ length: 12 }, () => api("GET", "/api/stats", { headers: { "x-api-key": o.apiKey } })),
    );
    const statuses = results.map((r) => r.status).sort();
    assert.deepEqual(statuses, [...Array(7).fill(200), ...Array(5).fill(429)]);
    assert.equal(await used(o.id, "calls"), 7);
  });

  it("counts payments per day on paid routes (not the per-minute limit, not the monthly calls); 429 PAYMENT_QUOTA_EXCEEDED", async () => {
    const o = await createOrg({ paymentsPerDay: 2, apiCallsPerMonth: 3 });
    const key = { "x-api-key": o.apiKey };
    const now = new Date();
    const tomorrow = String(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1) / 1000);
    // No payment (402) and a forged payment use no slot.
    const unpaid = await api("POST", SEARCH, { headers: key, body: { limit: 1 } });
    assert.equal(unpaid.status, 402, JSON.stringify(unpaid.body));
    assert.deepEqual(rate(unpaid), { limit: "2", remaining: "2", reset: tomorrow }); // its slot given back
    const forged = await api("POST", SEARCH, { headers: { ...key, "x-payment": '{"not":"a payment"}' }, body: {} });
    assert.ok(forged.status >= 400 && forged.status < 500, String(forged.status));
    assert.equal(await used(o.id, "payments"), 0);

    // The per-minute window is exhausted: paid routes are priced per request, not rate limited.
    const windowStart = Math.floor(Date.now() / 1000 / 60) * 60;
    await db.query(
      `insert into api.rate_limit (key, window_start, count) values ($1, to_timestamp($2), 1000)
       on conflict (key, window_start) do update set count = 1000`,
      [`org:${o.id}:60`, windowStart],
    );
    const first = await pay(key);
    assert.equal(first.status, 200, JSON.stringify(first.body));
    assert.deepEqual(rate(first), { limit: "2", remaining: "1", reset: tomorrow });
    const second = await pay(key);
    assert.equal(second.status, 200, JSON.stringify(second.body));
    assert.equal(rate(second).remaining, "0");
    const third = await pay(key);
    assert.equal(third.status, 429, JSON.stringify(third.body));
    assert.equal(code(third), "PAYMENT_QUOTA_EXCEEDED");
    assert.deepEqual(rate(third), { limit: "2", remaining: "0", reset: tomorrow });
    assert.equal(await used(o.id, "payments"), 2);
    assert.equal(await used(o.id, "calls"), 0); // paid calls do not count as API calls
    const stats = await api("GET", `/api/organizations/${o.id}/stats`, { headers: admin });
    assert.equal(stats.body.apiUsage.x402Payments, 2);
  });

  it("puts X-RateLimit-* on every /api response: paid routes without a key and errors before any limiter", async () => {
    const check = (res: { status: number; headers: Headers }, what: string) => {
      const r = rate(res);
      assert.ok(r.limit && r.remaining && r.reset, `${what} (${res.status}) has no rate headers`);
      // The current window's end: not a past window's. Whole seconds, so an answer given in a window's last
      // moment and read just after the minute turned (reset == now) is not mistaken for a stale one.
      assert.ok(Number(r.reset) >= Math.floor(Date.now() / 1000), `${what}: reset not in the past`);
    };
    const paidNoKey = await api("POST", SEARCH, { body: { limit: 1 } });
    assert.equal(paidNoKey.status, 402);
    check(paidNoKey, "paid route without a key");
    const ip = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    // Free calls from this address: the paid call's headers show the public allowance, which it did not use.
    await api("GET", "/api/stats", { ip });
    const paidSameIp = await pay({});
    check(paidSameIp, "paid call");
    const paidIp = await api("POST", SEARCH, { ip, body: { limit: 1 } });
    assert.equal(rate(paidIp).limit, "100");
    // 99 unless the minute turned between the two calls (a fresh window): never lower, the paid call is not counted.
    assert.ok(["99", "100"].includes(rate(paidIp).remaining!), rate(paidIp).remaining!);
    const badKey = await api("GET", "/api/agents", { headers: { "x-api-key": `ah_live_${"x".repeat(43)}` } });
    assert.equal(code(badKey), "INVALID_API_KEY");
    check(badKey, "unknown key");
    const tooLarge = await api("POST", "/api/agents/register", {
      headers: { "content-type": "application/json" },
      rawBody: JSON.stringify({ name: "x".repeat(70 * 1024) }),
    });
    assert.equal(tooLarge.status, 413);
    check(tooLarge, "body too large");
    const missing = await api("GET", "/api/no-such-route");
    assert.equal(missing.status, 404);
    check(missing, "unknown route");
    const o = await createOrg({ apiCallsPerMonth: 50 });
    const viewer = await api("POST", `/api/organizations/${o.id}/members`, {
      headers: admin,
      body: { email: `v-${uniq()}@example.com`, role: "viewer" },
    });
    const forbidden = await api("POST", "/api/agents/register", {
      headers: { "x-api-key": viewer.body.apiKey },
      body: { name: "nope" },
    });
    assert.equal(code(forbidden), "FORBIDDEN_ROLE");
    check(forbidden, "viewer write");
    const keyed = await api("GET", "/api/agents", { headers: { "x-api-key": o.apiKey } });
    assert.equal(rate(keyed).limit, "50"); // the monthly quota binds before the 100 per minute
  });

  it("public endpoints outside /api share the public allowance and carry its headers; probes carry none", async () => {
    const reg = await registerAgent();
    const detail = await api("GET", `/api/agents/${reg.agentId}`);
    const cid = (detail.body.ipfsHash as string).slice("ipfs://".length);
    const docs = await api("GET", "/docs");
    const asset = /href="(\/docs\/assets\/[^"]+\.css)"/.exec(docs.body)?.[1];
    assert.ok(asset, "the docs page links its stylesheet");
    const ip = `10.8.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    const remaining: number[] = [];
    for (const path of [
      "/openapi.json",
      "/docs",
      asset,
      `/ipfs/${cid}`,
      "/ipfs/not-a-cid",
      `/claim/${reg.claimCode}`,
      "/nowhere",
    ]) {
      const res = await api("GET", path, { ip });
      assert.ok(res.status === 200 || res.status === 400 || res.status === 404, `${path}: ${res.status}`);
      assert.equal(rate(res).limit, "100", `${path} (${res.status}) carries the public limit`);
      assert.ok(Number(rate(res).reset) >= Math.floor(Date.now() / 1000), `${path}: reset not in the past`);
      remaining.push(Number(rate(res).remaining));
    }
    // Counted, one allowance with /api: each response shows one less (unless the minute turned in between).
    const api1 = await api("GET", "/api/stats", { ip });
    remaining.push(Number(rate(api1).remaining));
    for (let i = 1; i < remaining.length; i++) {
      assert.ok(remaining[i] === remaining[i - 1]! - 1 || remaining[i]! >= 98, JSON.stringify(remaining));
    }
    for (const path of ["/health", "/ready", "/metrics"]) {
      const res = await api("GET", path, { ip, headers: { authorization: `Bearer ${stack.secrets.metricsToken}` } });
      assert.equal(res.status, 200, path);
      assert.equal(res.headers.get("x-ratelimit-limit"), null, `${path} is not rate limited`);
    }
    // Past the allowance the document is refused like any public endpoint.
    const busy = `10.7.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    let refused: Awaited<ReturnType<typeof api<any>>> | undefined;
    for (let i = 0; i < 101 && !refused; i++) {
      const res = await api("GET", "/nowhere", { ip: busy });
      if (res.status === 429) refused = res;
    }
    assert.ok(refused, "no 429 within 101 requests");
    assert.equal(code(refused), "RATE_LIMITED");
    assert.ok(Number(refused.headers.get("retry-after")) > 0);
    assert.equal(rate(refused).remaining, "0");
  });
});

// Organizations against the real stack: both creation variants, hashed credentials, key rotation with its grace
// period, members and plan limits, custom-domain verification through the loopback DNS server, org-scoped
// registration/listing/search, plan rate headers, usage statistics and every error code.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { describe, it } from "node:test";
import { setTxtRecord } from "../support/dns.ts";
import { signPayment } from "../support/payments.ts";
import { api, db, newWallet, stack } from "../support/stack.ts";

const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const sha256 = (v: string) => createHash("sha256").update(v).digest("hex");
const uniq = () => Math.random().toString(36).slice(2, 10);

interface Org {
  id: string;
  apiKey: string;
  testApiKey: string;
  apiSecret: string;
}

async function createOrg(extra: Record<string, unknown> = {}): Promise<Org> {
  const res = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name: `Org ${uniq()}`, subdomain: `org-${uniq()}`, adminEmail: `admin-${uniq()}@example.com`, ...extra },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

const keyAndSecret = (o: Org) => ({ "x-api-key": o.apiKey, "x-api-secret": o.apiSecret });
const code = (res: { body: { error?: { code: string } } }) => res.body.error?.code;

describe("organizations", () => {
  it("creates variant A with prefixed credentials stored only as SHA-256 hashes", async () => {
    const sub = `acme-${uniq()}`;
    const res = await api("POST", "/api/organizations", {
      headers: admin,
      body: {
        name: "Acme Agents",
        subdomain: sub,
        adminEmail: "Boss@Acme.example",
        branding: { logo: "https://acme.example/logo.png", primaryColor: "#112233", accentColor: "#abc" },
        isolation: "none",
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    const b = res.body;
    assert.match(b.id, /^org_[0-9a-f]{24}$/);
    assert.equal(b.name, "Acme Agents");
    assert.equal(b.subdomain, sub);
    assert.match(b.apiKey, /^ah_live_[A-Za-z0-9_-]{43}$/);
    assert.match(b.testApiKey, /^ah_test_[A-Za-z0-9_-]{43}$/);
    assert.match(b.apiSecret, /^ah_secret_[A-Za-z0-9_-]{43}$/);
    // The organization's white-label site (test/e2e/white-label.test.ts shows it answers).
    assert.equal(b.dashboard, `http://${sub}.localhost:${new URL(stack.env.PUBLIC_URL!).port}/`);
    assert.ok(!Number.isNaN(Date.parse(b.createdAt)));
    assert.equal(b.plan, "starter");

    const stored = await db.query("select key_hash, kind, prefix from api.org_credential where org_id = $1", [b.id]);
    assert.equal(stored.rowCount, 3);
    const hashes = new Set(stored.rows.map((r) => r.key_hash));
    for (const k of [b.apiKey, b.testApiKey, b.apiSecret]) assert.ok(hashes.has(sha256(k)));
    const raw = JSON.stringify(
      (await db.query("select * from api.org_credential where org_id = $1", [b.id])).rows.concat(
        (await db.query("select * from api.organization where id = $1", [b.id])).rows,
      ),
    );
    for (const k of [b.apiKey, b.testApiKey, b.apiSecret]) assert.ok(!raw.includes(k), "a key is stored in clear");

    const got = await api("GET", `/api/organizations/${b.id}`, { headers: { "x-api-key": b.apiKey } });
    assert.equal(got.status, 200);
    assert.equal(got.body.adminEmail, "Boss@Acme.example");
    assert.equal(got.body.branding.primaryColor, "#112233");
    const branding = await api("GET", `/api/organizations/${b.id}/branding`);
    assert.equal(branding.status, 200);
    assert.equal(branding.body.organization.id, b.id);
    assert.equal(branding.body.branding.logo, "https://acme.example/logo.png");
    const members = await api("GET", `/api/organizations/${b.id}/members`, { headers: admin });
    assert.equal(members.body.members.length, 1);
    assert.equal(members.body.members[0].role, "admin");
  });

  it("creates variant B with credentials, a derived subdomain and pending DNS records (growth by default)", async () => {
    const domain = `b-${uniq()}.example`;
    const res = await api("POST", "/api/organizations", {
      headers: admin,
      body: {
        name: "Beta Corp",
        domain,
        config: { branding: { logo: "https://beta.example/l.png", primaryColor: "#000000" } },
      },
    });
    assert.equal(res.status, 201, JSON.stringify(res.body));
    assert.match(res.body.credentials.apiKey, /^ah_live_/);
    assert.match(res.body.credentials.apiSecret, /^ah_secret_/);
    assert.equal(res.body.organization.domain, domain);
    assert.equal(res.body.organization.domainStatus, "pending");
    assert.equal(res.body.organization.plan, "growth");
    assert.match(res.body.organization.subdomain, /^beta-corp/);
    assert.equal(res.body.organization.branding.primaryColor, "#000000");
    assert.ok(res.body.dnsRecords.some((r: { type: string }) => r.type === "CNAME"));
    assert.equal(typeof res.body.message, "string");
  });

  it("rejects bad creations: no admin token, taken subdomain, full isolation without enterprise, bad input", async () => {
    const noAuth = await api("POST", "/api/organizations", { body: { name: "x", subdomain: `s-${uniq()}` } });
    assert.equal(noAuth.status, 401);
    const o = await createOrg();
    const sub = (await api("GET", `/api/organizations/${o.id}`, { headers: admin })).body.subdomain;
    const taken = await api("POST", "/api/organizations", { headers: admin, body: { name: "y", subdomain: sub } });
    assert.equal(taken.status, 409);
    assert.equal(code(taken), "SUBDOMAIN_TAKEN");
    const full = await api("POST", "/api/organizations", {
      headers: admin,
      body: { name: "z", subdomain: `f-${uniq()}`, isolation: "full" },
    });
    assert.equal(full.status, 422);
    assert.equal(code(full), "ISOLATION_UNAVAILABLE");
    const starterSchema = await api("POST", "/api/organizations", {
      headers: admin,
      body: { name: "z", subdomain: `f-${uniq()}`, isolation: "schema", plan: "starter" },
    });
    assert.equal(code(starterSchema), "ISOLATION_NOT_AVAILABLE");
    const schema = await api("POST", "/api/organizations", {
      headers: admin,
      body: { name: "z", subdomain: `s-${uniq()}`, isolation: "schema" },
    });
    assert.equal(schema.status, 201);
    assert.equal(schema.body.plan, "growth");
    const enterprise = await api("POST", "/api/organizations", {
      headers: admin,
      body: { name: "z", subdomain: `e-${uniq()}`, isolation: "full", plan: "enterprise" },
    });
    assert.equal(enterprise.status, 422);
    assert.equal(code(enterprise), "ISOLATION_UNAVAILABLE");
    for (const body of [
      {},
      { name: "x", subdomain: "a" },
      { name: "x", subdomain: `ok-${uniq()}`, branding: { primaryColor: "red" } },
      { name: "x", subdomain: `ok-${uniq()}`, isolation: "weird" },
      { name: "x", subdomain: `ok-${uniq()}`, adminEmail: "not-an-email" },
      { name: "x", subdomain: `ok-${uniq()}`, unknown: 1 },
    ]) {
      const bad = await api("POST", "/api/organizations", { headers: admin, body });
      assert.equal(bad.status, 400, JSON.stringify(body));
      assert.equal(code(bad), "VALIDATION_ERROR");
    }
    const malformed = await api("POST", "/api/organizations", {
      headers: { ...admin, "content-type": "application/json" },
      rawBody: "{not json",
    });
    assert.equal(malformed.status, 400);
  });

  it("authenticates keys: unknown 401, other org 403, secret required, wrong secret 401, unknown org 404", async () => {
    const a = await createOrg();
    const b = await createOrg();
    const unknown = await api("GET", "/api/agents", { headers: { authorization: `Bearer ah_live_${"x".repeat(43)}` } });
    assert.equal(unknown.status, 401);
    assert.equal(code(unknown), "INVALID_API_KEY");
    const garbage = await api("GET", "/api/agents", { headers: { "x-api-key": "nope" } });
    assert.equal(code(garbage), "INVALID_API_KEY");
    const other = await api("GET", `/api/organizations/${b.id}`, { headers: { "x-api-key": a.apiKey } });
    assert.equal(other.status, 403);
    assert.equal(code(other), "ORGANIZATION_FORBIDDEN");
    const noSecret = await api("PATCH", `/api/organizations/${a.id}`, {
      headers: { "x-api-key": a.apiKey },
      body: { name: "New" },
    });
    assert.equal(noSecret.status, 401);
    assert.equal(code(noSecret), "API_SECRET_REQUIRED");
    const wrongSecret = await api("PATCH", `/api/organizations/${a.id}`, {
      headers: { "x-api-key": a.apiKey, "x-api-secret": b.apiSecret },
      body: { name: "New" },
    });
    assert.equal(code(wrongSecret), "INVALID_API_SECRET");
    const anonymous = await api("GET", `/api/organizations/${a.id}/stats`);
    assert.equal(code(anonymous), "AUTH_REQUIRED");
    const missing = await api("GET", "/api/organizations/org_doesnotexist", { headers: admin });
    assert.equal(missing.status, 404);
    assert.equal(code(missing), "ORGANIZATION_NOT_FOUND");
    const missingBranding = await api("GET", "/api/organizations/org_doesnotexist/branding");
    assert.equal(code(missingBranding), "ORGANIZATION_NOT_FOUND");

    const patched = await api("PATCH", `/api/organizations/${a.id}`, {
      headers: keyAndSecret(a),
      body: { name: "Renamed", branding: { accentColor: "#ffffff" } },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    assert.equal(patched.body.name, "Renamed");
    assert.equal(patched.body.branding.accentColor, "#ffffff");
    const planByKey = await api("PATCH", `/api/organizations/${a.id}`, {
      headers: keyAndSecret(a),
      body: { plan: "enterprise" },
    });
    assert.equal(planByKey.status, 403);
    assert.equal(code(planByKey), "ADMIN_ONLY");
    const empty = await api("PATCH", `/api/organizations/${a.id}`, { headers: admin, body: {} });
    assert.equal(code(empty), "VALIDATION_ERROR");
  });

  it("rotates the live key: the previous key works until previousKeyValidUntil, then not", async () => {
    const o = await createOrg();
    const rotated = await api("POST", `/api/organizations/${o.id}/rotate-key`, { headers: keyAndSecret(o) });
    assert.equal(rotated.status, 200, JSON.stringify(rotated.body));
    assert.match(rotated.body.apiKey, /^ah_live_/);
    assert.notEqual(rotated.body.apiKey, o.apiKey);
    const graceDays = (Date.parse(rotated.body.previousKeyValidUntil) - Date.now()) / 86_400_000;
    assert.ok(graceDays > 6.99 && graceDays <= 7, `grace ${graceDays} days`);
    for (const key of [o.apiKey, rotated.body.apiKey]) {
      const res = await api("GET", `/api/organizations/${o.id}`, { headers: { "x-api-key": key } });
      assert.equal(res.status, 200);
    }
    // The grace period ends: move the stored expiry into the past (the database clock decides).
    const moved = await db.query(
      "update api.org_credential set expires_at = now() - interval '1 second' where key_hash = $1",
      [sha256(o.apiKey)],
    );
    assert.equal(moved.rowCount, 1);
    const old = await api("GET", `/api/organizations/${o.id}`, { headers: { "x-api-key": o.apiKey } });
    assert.equal(old.status, 401);
    assert.equal(code(old), "INVALID_API_KEY");
    const fresh = await api("GET", `/api/organizations/${o.id}`, { headers: { "x-api-key": rotated.body.apiKey } });
    assert.equal(fresh.status, 200);
  });

  it("rotates the test key and the secret too, each with its grace period, and revokes at once on request", async () => {
    const o = await createOrg();
    const get = (headers: Record<string, string>) => api("GET", `/api/organizations/${o.id}/stats`, { headers });
    const rotate = (headers: Record<string, string>, body?: Record<string, unknown>) =>
      api("POST", `/api/organizations/${o.id}/rotate-key`, { headers, ...(body ? { body } : {}) });

    const test = await rotate(keyAndSecret(o), { kind: "test" });
    assert.equal(test.status, 200, JSON.stringify(test.body));
    assert.equal(test.body.kind, "test");
    assert.match(test.body.testApiKey, /^ah_test_[A-Za-z0-9_-]{43}$/);
    assert.ok(Date.parse(test.body.previousKeyValidUntil) > Date.now() + 6.99 * 86_400_000);
    for (const key of [o.testApiKey, test.body.testApiKey]) assert.equal((await get({ "x-api-key": key })).status, 200);

    const secret = await rotate(keyAndSecret(o), { kind: "secret" });
    assert.equal(secret.status, 200, JSON.stringify(secret.body));
    assert.match(secret.body.apiSecret, /^ah_secret_[A-Za-z0-9_-]{43}$/);
    const withSecret = (s: string) => ({ "x-api-key": o.apiKey, "x-api-secret": s });
    // Both secrets open key+secret operations during the grace period.
    for (const s of [o.apiSecret, secret.body.apiSecret]) {
      const res = await api("POST", `/api/organizations/${o.id}/members`, {
        headers: withSecret(s),
        body: { email: `m-${uniq()}@example.com`, role: "viewer" },
      });
      assert.notEqual(res.status, 401, JSON.stringify(res.body));
    }

    // A leaked secret: rotate with revokePrevious, and every earlier secret stops at once.
    const revoked = await rotate(withSecret(secret.body.apiSecret), { kind: "secret", revokePrevious: true });
    assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
    assert.equal(revoked.body.previousKeyValidUntil, null);
    for (const s of [o.apiSecret, secret.body.apiSecret]) {
      const res = await rotate(withSecret(s), { kind: "live" });
      assert.equal(res.status, 401, JSON.stringify(res.body));
      assert.equal(code(res), "INVALID_API_SECRET");
    }
    // A leaked live key, revoked by the admin: the old key is refused on the very next request.
    const live = await rotate(admin, { kind: "live", revokePrevious: true });
    assert.equal(live.status, 200, JSON.stringify(live.body));
    const old = await get({ "x-api-key": o.apiKey });
    assert.equal(old.status, 401);
    assert.equal(code(old), "INVALID_API_KEY");
    assert.equal((await get({ "x-api-key": live.body.apiKey })).status, 200);
    // The test key rotated first kept its own grace end; the new one works.
    assert.equal((await get({ "x-api-key": test.body.testApiKey })).status, 200);

    const badKind = await rotate(admin, { kind: "admin" });
    assert.equal(badKind.status, 400);
    assert.equal(code(badKind), "VALIDATION_ERROR");
  });

  it("manages members within the plan limit (starter: 3)", async () => {
    const o = await createOrg(); // the admin email is member 1
    const h = keyAndSecret(o);
    const dev = await api("POST", `/api/organizations/${o.id}/members`, {
      headers: h,
      body: { email: "dev@example.com", role: "developer" },
    });
    assert.equal(dev.status, 201, JSON.stringify(dev.body));
    assert.equal(dev.body.role, "developer");
    const dup = await api("POST", `/api/organizations/${o.id}/members`, {
      headers: h,
      body: { email: "DEV@example.com", role: "viewer" },
    });
    assert.equal(dup.status, 409);
    assert.equal(code(dup), "MEMBER_EXISTS");
    const viewer = await api("POST", `/api/organizations/${o.id}/members`, {
      headers: admin,
      body: { email: "view@example.com", role: "viewer" },
    });
    assert.equal(viewer.status, 201);
    const over = await api("POST", `/api/organizations/${o.id}/members`, {
      headers: h,
      body: { email: "four@example.com", role: "viewer" },
    });
    assert.equal(over.status, 403);
    assert.equal(code(over), "PLAN_LIMIT_REACHED");
    const badRole = await api("POST", `/api/organizations/${o.id}/members`, {
      headers: h,
      body: { email: "x@example.com", role: "owner" },
    });
    assert.equal(code(badRole), "VALIDATION_ERROR");
    const list = await api("GET", `/api/organizations/${o.id}/members`, { headers: h });
    assert.equal(list.body.members.length, 3);
    assert.equal(list.body.limit, 3);
    const removed = await api("DELETE", `/api/organizations/${o.id}/members/${dev.body.id}`, { headers: h });
    assert.equal(removed.status, 200);
    assert.equal(removed.body.removed, true);
    const again = await api("DELETE", `/api/organizations/${o.id}/members/${dev.body.id}`, { headers: h });
    assert.equal(code(again), "MEMBER_NOT_FOUND");
    const adminMember = list.body.members.find((m: { role: string }) => m.role === "admin");
    const last = await api("DELETE", `/api/organizations/${o.id}/members/${adminMember.id}`, { headers: h });
    assert.equal(last.status, 409);
    assert.equal(code(last), "LAST_ADMIN");
  });

  it("verifies a custom domain through a real DNS lookup (growth plan only)", async () => {
    const starter = await createOrg();
    const denied = await api("POST", `/api/organizations/${starter.id}/domain`, {
      headers: keyAndSecret(starter),
      body: { domain: "agents.starter.example" },
    });
    assert.equal(denied.status, 403);
    assert.equal(code(denied), "PLAN_LIMIT_REACHED");

    const o = await createOrg({ plan: "growth" });
    const h = keyAndSecret(o);
    const notConfigured = await api("POST", `/api/organizations/${o.id}/domain/verify`, { headers: h });
    assert.equal(notConfigured.status, 400);
    assert.equal(code(notConfigured), "DOMAIN_NOT_CONFIGURED");
    const domain = `agents-${uniq()}.example`;
    const res = await api("POST", `/api/organizations/${o.id}/domain`, { headers: h, body: { domain } });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.domain, domain);
    assert.equal(res.body.status, "pending");
    const cname = res.body.dnsRecords.find((r: { type: string }) => r.type === "CNAME");
    const txt = res.body.dnsRecords.find((r: { type: string }) => r.type === "TXT");
    assert.equal(cname.name, domain);
    assert.equal(txt.name, `_agenthub-verify.${domain}`);

    const early = await api("POST", `/api/organizations/${o.id}/domain/verify`, { headers: h });
    assert.equal(early.status, 400);
    assert.equal(code(early), "DOMAIN_NOT_VERIFIED");
    setTxtRecord(txt.name, ["unrelated", "agenthub-verify=wrong"]);
    const wrong = await api("POST", `/api/organizations/${o.id}/domain/verify`, { headers: h });
    assert.equal(code(wrong), "DOMAIN_NOT_VERIFIED");
    setTxtRecord(txt.name, ["unrelated", txt.value]);
    const ok = await api("POST", `/api/organizations/${o.id}/domain/verify`, { headers: h });
    assert.equal(ok.status, 200, JSON.stringify(ok.body));
    assert.equal(ok.body.status, "active");
    assert.equal(ok.body.verified, true);
    assert.ok(ok.body.verifiedAt);

    // Another organization cannot take an active domain.
    const rival = await createOrg({ plan: "growth" });
    const clash = await api("POST", `/api/organizations/${rival.id}/domain`, {
      headers: keyAndSecret(rival),
      body: { domain },
    });
    assert.equal(clash.status, 409);
    assert.equal(code(clash), "DOMAIN_TAKEN");
    const invalid = await api("POST", `/api/organizations/${o.id}/domain`, { headers: h, body: { domain: "no" } });
    assert.equal(code(invalid), "VALIDATION_ERROR");
  });

  it("scopes registration, listing and search to the organization and enforces the agent quota", async () => {
    const o = await createOrg();
    const other = await createOrg();
    const viaBearer = await api("POST", "/api/agents/register", {
      headers: { authorization: `Bearer ${o.apiKey}` },
      body: { name: "Org Coder", capabilities: ["Coding", "review"], domains: ["fintech"] },
    });
    assert.equal(viaBearer.status, 201, JSON.stringify(viaBearer.body));
    assert.equal(viaBearer.headers.get("x-ratelimit-limit"), "100");
    const viaRoute = await api("POST", `/api/organizations/${o.id}/agents`, {
      headers: keyAndSecret(o),
      body: { name: "Org Writer", capabilities: ["writing"], domains: ["media"] },
    });
    assert.equal(viaRoute.status, 201, JSON.stringify(viaRoute.body));
    assert.equal(viaRoute.body.organization, o.id);
    assert.equal(viaRoute.body.status, "UNVERIFIED");
    const outsider = await api("POST", "/api/agents/register", {
      headers: { "x-api-key": other.apiKey },
      body: { name: "Other Org Agent", capabilities: ["coding"] },
    });
    assert.equal(outsider.status, 201);

    const owned = await db.query("select agent_id::int id, org_id from api.agent_wallet where agent_id = any($1)", [
      [viaBearer.body.agentId, viaRoute.body.agentId],
    ]);
    assert.deepEqual(
      owned.rows.map((r) => r.org_id),
      [o.id, o.id],
    );

    const listed = await api("GET", "/api/agents?limit=100", { headers: { authorization: `Bearer ${o.apiKey}` } });
    assert.equal(listed.status, 200);
    assert.deepEqual(
      listed.body.agents.map((a: { tokenId: number }) => a.tokenId).sort(),
      [viaBearer.body.agentId, viaRoute.body.agentId].sort(),
    );
    assert.equal(listed.body.pagination.total, 2);
    const testKeyList = await api("GET", "/api/agents", { headers: { "x-api-key": o.testApiKey } });
    assert.equal(testKeyList.body.pagination.total, 2);
    const publicList = await api("GET", "/api/agents");
    assert.ok(publicList.body.pagination.total > 2);

    const search = await api("GET", `/api/organizations/${o.id}/agents/search?capabilities=coding`, {
      headers: keyAndSecret(o),
    });
    assert.equal(search.status, 200, JSON.stringify(search.body));
    assert.deepEqual(
      search.body.agents.map((a: { tokenId: number }) => a.tokenId),
      [viaBearer.body.agentId],
    );
    const byDomain = await api("GET", `/api/organizations/${o.id}/agents/search?domain=media`, {
      headers: keyAndSecret(o),
    });
    assert.deepEqual(
      byDomain.body.agents.map((a: { tokenId: number }) => a.tokenId),
      [viaRoute.body.agentId],
    );
    const all = await api("GET", `/api/organizations/${o.id}/agents/search`, { headers: admin });
    assert.equal(all.body.total, 2);

    // Quota: starter allows 10 agents; fill the rest with wallet rows and see the 11th refused before any mint.
    await db.query(
      `insert into api.agent_wallet (wallet_address, claim_code_hash, claim_expires_at, org_id)
       select '0xquota' || g || '${o.id}', 'quota' || g || '${o.id}', now(), $1 from generate_series(1, 8) g`,
      [o.id],
    );
    const over = await api("POST", "/api/agents/register", {
      headers: { "x-api-key": o.apiKey },
      body: { name: "One Too Many" },
    });
    assert.equal(over.status, 403);
    assert.equal(code(over), "PLAN_LIMIT_REACHED");
    const overRoute = await api("POST", `/api/organizations/${o.id}/agents`, {
      headers: keyAndSecret(o),
      body: { name: "One Too Many" },
    });
    assert.equal(code(overRoute), "PLAN_LIMIT_REACHED");
  });

  it("sets plan rate headers on every keyed response and answers 429 past the plan limit", async () => {
    const o = await createOrg();
    const first = await api("GET", `/api/organizations/${o.id}`, { headers: { "x-api-key": o.apiKey } });
    assert.equal(first.headers.get("x-ratelimit-limit"), "100");
    const remaining = Number(first.headers.get("x-ratelimit-remaining"));
    assert.ok(remaining <= 99);
    assert.ok(Number(first.headers.get("x-ratelimit-reset")) >= Math.floor(Date.now() / 1000));
    // Exhaust the current window directly in the shared counter table (the limiter is Postgres-backed).
    const windowStart = Math.floor(Date.now() / 1000 / 60) * 60;
    await db.query(
      `insert into api.rate_limit (key, window_start, count) values ($1, to_timestamp($2), 100)
       on conflict (key, window_start) do update set count = 100`,
      [`org:${o.id}:60`, windowStart],
    );
    const limited = await api("GET", "/api/agents", { headers: { "x-api-key": o.apiKey } });
    // Paid routes are priced per request, not rate limited (spec §8), with the key as without it.
    const payer = newWallet();
    const recipient = (await api("GET", "/api/config")).body.platformRecipient;
    const paid = await api("POST", "/api/intelligence/search", {
      headers: {
        "x-api-key": o.apiKey,
        "x-payment": await signPayment(payer.account, { recipient, endpoint: "/api/intelligence/search" }),
      },
      body: { limit: 1 },
    });
    if (Math.floor(Date.now() / 1000 / 60) * 60 === windowStart) {
      assert.equal(limited.status, 429);
      assert.equal(code(limited), "RATE_LIMITED");
      assert.equal(limited.headers.get("x-ratelimit-remaining"), "0");
      assert.equal(paid.status, 200, JSON.stringify(paid.body));
    }
    const growth = await createOrg({ plan: "growth" });
    const g = await api("GET", "/api/agents", { headers: { "x-api-key": growth.apiKey } });
    assert.equal(g.headers.get("x-ratelimit-limit"), "1000");
  });

  it("counts usage and agents in stats; reputation-sharing settings validate whitelisted orgs", async () => {
    const o = await createOrg();
    const before = await api("GET", `/api/organizations/${o.id}/stats`, { headers: admin });
    assert.equal(before.status, 200, JSON.stringify(before.body));
    assert.equal(before.body.apiUsage.requests, 0);
    assert.equal(before.body.agents.total, 0);
    for (let i = 0; i < 3; i++) await api("GET", "/api/agents", { headers: { "x-api-key": o.apiKey } });
    const reg = await api("POST", "/api/agents/register", {
      headers: { "x-api-key": o.apiKey },
      body: { name: "Counted" },
    });
    assert.equal(reg.status, 201);
    const stats = await api("GET", `/api/organizations/${o.id}/stats`, { headers: { "x-api-key": o.apiKey } });
    assert.equal(stats.status, 200);
    // 3 lists + 1 registration + this stats call: a request is counted when it is admitted, in the one statement
    // that authenticates the key (docs/decisions.md, "One statement per organization key").
    assert.equal(stats.body.apiUsage.requests, 5);
    assert.equal(stats.body.apiUsage.x402Payments, 0);
    assert.equal(stats.body.apiUsage.x402Volume, "0");
    assert.equal(stats.body.agents.total, 1);
    assert.equal(stats.body.agents.active, 0);
    assert.equal(stats.body.bounties.created, 0);
    assert.equal(stats.body.bounties.totalVolume, "0");

    const partner = await createOrg();
    const got = await api("GET", `/api/organizations/${o.id}/reputation-sharing`, {
      headers: { "x-api-key": o.apiKey },
    });
    assert.deepEqual(got.body, { organization: o.id, shareOutbound: false, acceptInbound: false, whitelistOrgs: [] });
    const set = await api("PATCH", `/api/organizations/${o.id}/reputation-sharing`, {
      headers: keyAndSecret(o),
      body: { shareOutbound: true, whitelistOrgs: [partner.id] },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    assert.deepEqual(set.body, {
      organization: o.id,
      shareOutbound: true,
      acceptInbound: false,
      whitelistOrgs: [partner.id],
    });
    const unknown = await api("PATCH", `/api/organizations/${o.id}/reputation-sharing`, {
      headers: keyAndSecret(o),
      body: { whitelistOrgs: ["org_nope"] },
    });
    assert.equal(unknown.status, 400);
    assert.equal(code(unknown), "INVALID_WHITELIST");
    const self = await api("PATCH", `/api/organizations/${o.id}/reputation-sharing`, {
      headers: keyAndSecret(o),
      body: { whitelistOrgs: [o.id] },
    });
    assert.equal(code(self), "INVALID_WHITELIST");
    const badType = await api("PATCH", `/api/organizations/${o.id}/reputation-sharing`, {
      headers: keyAndSecret(o),
      body: { shareOutbound: "yes" },
    });
    assert.equal(code(badType), "VALIDATION_ERROR");
  });
});

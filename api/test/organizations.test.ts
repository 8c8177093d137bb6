import assert from "node:assert/strict";
import { createHash, createHmac } from "node:crypto";
import { describe, it } from "node:test";
import {
  displayPrefix,
  generateCredential,
  hashCredential,
  keyKind,
  sameDigest,
  wellFormed,
} from "../src/auth/credentials.ts";
import { choosePlan, effectiveQuotas, PLANS, quotaPeriod, underLimit } from "../src/domain/plans.ts";
import { ERRORS } from "../src/errors.ts";
import { slugify } from "../src/use-cases/organizations/create-organization.ts";
import { delivered, MAX_ATTEMPTS, retryDelaySeconds } from "../src/webhooks/events.ts";
import {
  generateWebhookSecret,
  signatureHeader,
  signPayload,
  standardSignature,
  verifySignature,
  webhookSecretProblem,
} from "../src/webhooks/signature.ts";

describe("organization credentials", () => {
  it("generates prefixed, well-formed, distinct keys", () => {
    const live = generateCredential("live");
    assert.match(live, /^ah_live_[A-Za-z0-9_-]{43}$/);
    assert.match(generateCredential("test"), /^ah_test_/);
    assert.match(generateCredential("secret"), /^ah_secret_/);
    assert.notEqual(live, generateCredential("live"));
    assert.ok(wellFormed(live, "live"));
    assert.ok(!wellFormed(live, "test"));
    assert.ok(!wellFormed(`${live}x`, "live"));
    assert.equal(keyKind(live), "live");
    assert.equal(keyKind("ah_test_abc"), "test");
    assert.equal(keyKind("Bearer-token"), null);
  });
  it("hashes with SHA-256 and compares digests in constant time", () => {
    assert.equal(hashCredential("abc"), createHash("sha256").update("abc").digest("hex"));
    assert.ok(sameDigest(hashCredential("a"), hashCredential("a")));
    assert.ok(!sameDigest(hashCredential("a"), hashCredential("b")));
    assert.ok(!sameDigest("", ""));
    assert.ok(!sameDigest("ab", "abcd"));
  });
  it("keeps only a short display prefix", () => {
    assert.equal(displayPrefix("ah_live_ABCDEFGH"), "ah_live_ABCD");
    assert.equal(displayPrefix("ah_secret_ABCDEFGH"), "ah_secret_ABCD");
  });
});

describe("plans", () => {
  it("defaults to the cheapest self-service plan that allows the request", () => {
    assert.deepEqual(choosePlan({ isolation: "none", customDomain: false }), { ok: true, plan: "starter" });
    assert.deepEqual(choosePlan({ isolation: "schema", customDomain: false }), { ok: true, plan: "growth" });
    assert.deepEqual(choosePlan({ isolation: "none", customDomain: true }), { ok: true, plan: "growth" });
  });
  it("refuses full isolation on every plan (no dedicated instances): 422 ISOLATION_UNAVAILABLE", () => {
    for (const plan of [undefined, "starter", "growth", "enterprise"] as const) {
      const r = choosePlan({ plan, isolation: "full", customDomain: false });
      assert.equal(r.ok, false);
      assert.equal(!r.ok && r.code, "ISOLATION_UNAVAILABLE");
      assert.equal(!r.ok && ERRORS[r.code].status, 422);
    }
    assert.deepEqual(choosePlan({ plan: "enterprise", isolation: "schema", customDomain: false }), {
      ok: true,
      plan: "enterprise",
    });
  });
  it("refuses an explicit plan that lacks a requested feature", () => {
    const s = choosePlan({ plan: "starter", isolation: "schema", customDomain: false });
    assert.equal(!s.ok && s.code, "ISOLATION_NOT_AVAILABLE");
    const d = choosePlan({ plan: "starter", isolation: "none", customDomain: true });
    assert.equal(!d.ok && d.code, "PLAN_LIMIT_REACHED");
  });
  it("publishes the spec's limits", () => {
    assert.equal(PLANS.starter.requestsPerMinute, 100);
    assert.equal(PLANS.starter.agents, 10);
    assert.equal(PLANS.starter.members, 3);
    assert.equal(PLANS.growth.requestsPerMinute, 1000);
    assert.equal(PLANS.growth.agents, 100);
    assert.equal(PLANS.enterprise.agents, null);
    assert.ok(underLimit(9, 10));
    assert.ok(!underLimit(10, 10));
    assert.ok(underLimit(1e9, null));
  });
  it("counts quotas per UTC month (calls) and UTC day (payments); own quotas override the plan's", () => {
    const t = Date.UTC(2026, 11, 31, 23, 59, 59);
    assert.deepEqual(quotaPeriod("calls", t), {
      start: Date.UTC(2026, 11, 1) / 1000,
      end: Date.UTC(2027, 0, 1) / 1000,
    });
    assert.deepEqual(quotaPeriod("payments", t), {
      start: Date.UTC(2026, 11, 31) / 1000,
      end: Date.UTC(2027, 0, 1) / 1000,
    });
    assert.deepEqual(effectiveQuotas("starter", { paymentsPerDay: null, apiCallsPerMonth: null }), {
      paymentsPerDay: 1_000,
      apiCallsPerMonth: 10_000,
    });
    assert.deepEqual(effectiveQuotas("enterprise", { paymentsPerDay: 5, apiCallsPerMonth: null }), {
      paymentsPerDay: 5,
      apiCallsPerMonth: null,
    });
  });
  it("derives subdomains from names", () => {
    assert.equal(slugify("Acme Corp!"), "acme-corp");
    assert.equal(slugify("  Ünïcode  Ägents "), "unicode-agents");
    assert.equal(slugify("A"), "org-a");
    assert.equal(slugify("!!!"), "org-x");
    assert.ok(slugify("x".repeat(200)).length <= 50);
  });
});

describe("webhook signatures", () => {
  it("is the hex HMAC-SHA256 of the raw body", () => {
    const body = '{"id":"evt_1","event":"agent.registered"}';
    const expected = createHmac("sha256", "whsec_test").update(body).digest("hex");
    assert.equal(signPayload("whsec_test", body), expected);
    assert.equal(signatureHeader("whsec_test", body), `sha256=${expected}`);
  });
  it("verifies prefixed or bare signatures and rejects tampering", () => {
    const body = '{"a":1}';
    const sig = signatureHeader("s3cret", body);
    assert.ok(verifySignature("s3cret", body, sig));
    assert.ok(verifySignature("s3cret", body, sig.slice(7)));
    assert.ok(!verifySignature("s3cret", '{"a":2}', sig));
    assert.ok(!verifySignature("other", body, sig));
    assert.ok(!verifySignature("s3cret", body, undefined));
    assert.ok(!verifySignature("s3cret", body, "sha256=zz"));
  });
  it("generates whsec_ + standard base64 of 32 random bytes (what the prefix claims)", () => {
    const secret = generateWebhookSecret();
    assert.match(secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(secret.slice(6), "base64").length, 32);
    assert.equal(webhookSecretProblem(secret), null);
  });
  it("signs the Standard Webhooks way: v1, base64 HMAC over id.timestamp.body, keyed by the secret's bytes", () => {
    const secret = `whsec_${Buffer.alloc(32, 9).toString("base64")}`;
    const body = '{"id":"evt_1"}';
    const mac = createHmac("sha256", Buffer.alloc(32, 9)).update(`evt_1.1700000000.${body}`).digest("base64");
    assert.equal(standardSignature(secret, "evt_1", 1_700_000_000, body), `v1,${mac}`);
    // A secret of one's own (not whsec_) is the key as raw bytes.
    const raw = createHmac("sha256", "my-own-secret-123").update(`evt_1.1700000000.${body}`).digest("base64");
    assert.equal(standardSignature("my-own-secret-123", "evt_1", 1_700_000_000, body), `v1,${raw}`);
  });
  it("refuses secrets that are not what they claim", () => {
    assert.match(webhookSecretProblem("whsec_****")!, /base64/);
    assert.match(webhookSecretProblem(`whsec_${Buffer.alloc(16).toString("base64")}`)!, /24 to 64/);
    assert.match(webhookSecretProblem("naïve-secret-1234")!, /ASCII/);
    assert.equal(webhookSecretProblem("plain-ascii-secret-123"), null);
  });
});

describe("webhook retries", () => {
  it("backs off exponentially (x4) up to a cap, ~18 h over 8 attempts with the default base", () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7].map((n) => retryDelaySeconds(n, 60)),
      [60, 240, 960, 3840, 15360, 21600, 21600],
    );
    const total = [1, 2, 3, 4, 5, 6, 7].reduce((s, n) => s + retryDelaySeconds(n, 60), 0);
    assert.ok(total > 15 * 3600 && total < 24 * 3600);
    assert.equal(MAX_ATTEMPTS, 8);
    assert.equal(retryDelaySeconds(0, 1), 1);
  });
  it("counts 2xx only as delivered", () => {
    assert.ok(delivered(200));
    assert.ok(delivered(204));
    assert.ok(!delivered(301));
    assert.ok(!delivered(500));
    assert.ok(!delivered(null));
  });
});

// The OpenAPI document declares every credential the API takes and attaches it to the operations that check it
// (the document `pnpm run compile` generates from the real app, as GET /openapi.json serves it).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";

type Op = { security?: Record<string, string[]>[] };
const doc = JSON.parse(readFileSync(new URL("../../sdk/src/generated/openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, Op>>;
  components: { securitySchemes: Record<string, unknown> };
};
const schemesOf = (path: string, method: string) =>
  (doc.paths[path]?.[method]?.security ?? []).map((r) => Object.keys(r).sort().join("+"));

describe("OpenAPI security schemes", () => {
  it("declares every credential", () => {
    assert.deepEqual(Object.keys(doc.components.securitySchemes).sort(), [
      "accessToken",
      "adminToken",
      "memberKey",
      "orgKey",
      "orgSecret",
      "x402",
      "xPayment",
    ]);
  });

  it("attaches each credential to the operations that check it", () => {
    assert.deepEqual(schemesOf("/api/agents/{id}/slash", "post"), ["adminToken"]);
    assert.deepEqual(schemesOf("/api/paymaster/budget", "put"), ["adminToken"]);
    assert.deepEqual(schemesOf("/api/runs/{id}/resolve", "post"), ["adminToken"]);
    assert.deepEqual(schemesOf("/api/organizations", "post"), ["adminToken"]);
    assert.deepEqual(schemesOf("/api/advanced/governance/proposals/{proposalId}/vote", "post"), ["accessToken"]);
    assert.deepEqual(schemesOf("/api/intelligence/search", "post"), ["x402", "xPayment"]);
    assert.deepEqual(schemesOf("/api/attestations/create", "post"), ["x402", "xPayment"]);
    // Admin-role organization operation: the admin token, the key with its secret, or a member key (by role).
    assert.deepEqual(schemesOf("/api/organizations/{id}/rotate-key", "post"), [
      "adminToken",
      "orgKey+orgSecret",
      "memberKey",
    ]);
    assert.ok(schemesOf("/api/organizations/{id}/agents", "post").includes("orgKey"), "developer: the key alone");
    assert.deepEqual(schemesOf("/api/organizations/{id}/branding", "get"), []);
    // Public operations take an organization or member key optionally (plan limits, scope).
    assert.deepEqual(schemesOf("/api/agents/{id}", "get"), ["", "orgKey", "memberKey"]);
  });
});

// AgentHubError: the API's codes are typed (KnownErrorCode is generated from the API's error catalogue through its
// OpenAPI document; this file does not compile when a code used here leaves the catalogue), answers map to codes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AgentHubError, type ApiErrorCode, isAgentHubError, type KnownErrorCode } from "../src/index.ts";

// Codes a hand-written list once missed: each must be a member of the generated union.
const fromCatalogue = [
  "MEMBER_EXISTS",
  "NOT_PROPOSER",
  "INVALID_CONSENT",
  "WITHDRAWAL_NOT_READY",
] as const satisfies readonly ApiErrorCode[];

describe("AgentHubError", () => {
  it("carries the API's code, status and Retry-After from an error answer", () => {
    const body = { error: { code: "MEMBER_EXISTS", message: "already a member" } };
    const e = AgentHubError.fromResponse(
      new Response(JSON.stringify(body), { status: 409, headers: { "retry-after": "3" } }),
      body,
    );
    assert.equal(e.code satisfies KnownErrorCode | string, fromCatalogue[0]);
    assert.equal(e.status, 409);
    assert.equal(e.retryAfter, 3);
    assert.equal(e.message, "MEMBER_EXISTS: already a member");
    assert.equal(e.retryable, false);
    assert.ok(isAgentHubError(e, "MEMBER_EXISTS"));
    assert.ok(!isAgentHubError(e, "NOT_PROPOSER"));
  });

  it("names answers without an error body by their HTTP status; pending answers are retryable", () => {
    const bare = AgentHubError.fromResponse(
      new Response("bad gateway", { status: 502, statusText: "Bad Gateway" }),
      "",
    );
    assert.equal(bare.code, "HTTP_502");
    assert.equal(bare.message, "HTTP_502: 502 Bad Gateway");
    const lagging = { error: { code: "INDEXER_LAGGING", message: "retry" } };
    assert.ok(AgentHubError.fromResponse(new Response(null, { status: 504 }), lagging).retryable);
    assert.equal(AgentHubError.client("NETWORK_ERROR", "down").status, 0);
  });
});

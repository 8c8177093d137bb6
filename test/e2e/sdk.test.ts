// The SDK can never drift from the server: its generated document and types (sdk/src/generated, made by
// `pnpm run compile` from createApp) equal what the running API serves at /openapi.json; and the SDK itself
// drives the stack (typed answers, typed errors carrying the API's codes).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { ERRORS } from "@agenthub/api/errors";
import { AgentHub, AgentHubError, isAgentHubError } from "@agenthub/sdk";
import { sdkTypesFor } from "../../scripts/lib/openapi-types.ts";
import { api, db, freshIp, newWallet, stack } from "../support/stack.ts";

after(() => db.end());

const generated = join(new URL("../..", import.meta.url).pathname, "sdk", "src", "generated");

describe("sdk: generated types against the served /openapi.json", () => {
  it("the generated document is exactly what the API serves, and the types are generated from it", async () => {
    const served = await api("GET", "/openapi.json");
    assert.equal(served.status, 200);
    const committed = JSON.parse(readFileSync(join(generated, "openapi.json"), "utf8"));
    assert.deepEqual(committed, served.body, "run `pnpm run compile`: the SDK's document differs from the API's");
    assert.equal(
      readFileSync(join(generated, "openapi.ts"), "utf8"),
      await sdkTypesFor(served.body),
      "run `pnpm run compile`: the SDK's types differ from the API's document",
    );
  });

  it("types every code of the API's error catalogue, and only those (KnownErrorCode)", async () => {
    const catalogue = Object.keys(ERRORS);
    assert.ok(catalogue.length > 100);
    const served = await api("GET", "/openapi.json");
    assert.deepEqual(served.body.components.schemas.ErrorCode.enum, catalogue);
    assert.deepEqual(served.body.components.schemas.Error.properties.error.properties.code, {
      $ref: "#/components/schemas/ErrorCode",
    });
    // The SDK's ApiErrorCode (sdk/src/errors.ts) is this generated union.
    const union = readFileSync(join(generated, "openapi.ts"), "utf8").match(
      /^\s*ErrorCode: ((?:"[A-Z0-9_]+"(?: \| )?)+);$/m,
    );
    assert.ok(union, "the generated types declare the ErrorCode union");
    assert.deepEqual(
      union[1]!.split(" | ").map((c) => JSON.parse(c)),
      catalogue,
      "run `pnpm run compile`: the SDK's error codes differ from the API's catalogue",
    );
    for (const code of ["MEMBER_EXISTS", "NOT_PROPOSER", "INVALID_CONSENT", "WITHDRAWAL_NOT_READY"]) {
      assert.ok(catalogue.includes(code), code);
    }
  });
});

describe("sdk: typed client against the stack", () => {
  const hub = new AgentHub({ apiUrl: stack.apiUrl, rpcUrl: stack.rpcUrl, headers: { "x-forwarded-for": freshIp() } });

  it("reads the deployment and its prices", async () => {
    const config = await hub.config();
    assert.equal(config.chainId, 84532);
    assert.equal(config.prices["/api/intelligence/search"]?.usdc, "1000");
    assert.equal(config.prices["/api/attestations/create"]?.spec, "5000000000000000");
  });

  it("throws AgentHubError with the API's code and status", async () => {
    const missing = await hub.agents.get(999_999_999).catch((e) => e);
    assert.ok(missing instanceof AgentHubError);
    assert.equal(missing.code, "AGENT_NOT_FOUND");
    assert.equal(missing.status, 404);
    assert.equal(missing.retryable, false);
    const { agentId, claimCode } = await hub.agents.register({ name: "sdk-agent", capabilities: ["coding"] });
    assert.match(claimCode, /^[A-Za-z0-9_-]{32}$/);
    const forged = await hub.agents
      .claim(agentId, { claimCode: "A".repeat(32), signer: newWallet().account })
      .catch((e) => e);
    assert.ok(isAgentHubError(forged, "CLAIM_CODE_INVALID"), String(forged));
  });
});

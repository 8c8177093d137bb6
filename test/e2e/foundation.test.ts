import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { RelayerClient } from "@agenthub/relayer/client";
import { api, db, deployments, stack, waitUntil } from "../support/stack.ts";

after(() => db.end());

describe("foundation: the stack answers", () => {
  it("GET /health is alive and GET /ready reports database, chain, relayer and indexer up", async () => {
    const health = await api("GET", "/health");
    assert.equal(health.status, 200);
    assert.equal(health.body.status, "ok");
    const res = await api("GET", "/ready");
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.ready, true);
    assert.deepEqual(res.body.failing, []);
    for (const part of ["database", "chain", "relayer", "indexer"]) assert.equal(res.body.checks[part].ok, true, part);
    assert.match(res.body.checks.indexer.indexedBlock, /^\d+$/, "indexer checkpoint visible through the views schema");
    assert.ok(res.body.checks.indexer.lagBlocks <= res.body.checks.indexer.maxLagBlocks);
  });

  it("GET /api/config returns chain id, every address and the payment domain", async () => {
    const res = await api("GET", "/api/config");
    assert.equal(res.status, 200);
    assert.equal(res.body.chainId, 84532);
    for (const [name, d] of Object.entries(deployments.contracts)) assert.equal(res.body.contracts[name], d.address);
    assert.equal(res.body.usdc.address, deployments.usdc.address);
    assert.deepEqual(res.body.paymentDomain, {
      name: "AgentHub x402",
      version: "1",
      chainId: 84532,
      verifyingContract: "0x0000000000000000000000000000000000000000",
    });
  });

  it("answers unknown routes, malformed JSON and wrong types with 4xx error bodies", async () => {
    const missing = await api("GET", "/api/nope");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "NOT_FOUND");

    const malformed = await api("POST", "/api/dev/faucet", {
      rawBody: "{not json",
      headers: { "content-type": "application/json" },
    });
    assert.equal(malformed.status, 400);
    assert.equal(malformed.body.error.code, "VALIDATION_ERROR");

    const wrongType = await api("POST", "/api/dev/faucet", { body: { address: 42 } });
    assert.equal(wrongType.status, 400);
    assert.equal(wrongType.body.error.code, "VALIDATION_ERROR");
    assert.match(wrongType.body.error.message, /address/);
  });

  it("serves an OpenAPI 3.1 document and docs page", async () => {
    const doc = await api("GET", "/openapi.json");
    assert.equal(doc.status, 200);
    assert.equal(doc.body.openapi, "3.1.0");
    assert.ok(doc.body.paths["/api/config"]);
    const page = await api("GET", "/docs");
    assert.equal(page.status, 200);
    assert.match(String(page.body), /swagger/i);
  });

  it("a token minted through the relayer appears in the indexed tables", async () => {
    const relayer = new RelayerClient(stack.relayerUrl, stack.secrets.relayerToken);
    const owner = "0x000000000000000000000000000000000000dEaD";
    const result = await relayer.call("AgentIdentity", AgentIdentityAbi, "mint", [
      owner,
      "ipfs://bafkreifoundationtest",
    ]);
    assert.match(result.txHash, /^0x[0-9a-f]{64}$/);
    const row = await waitUntil("indexed agent", async () => {
      const r = await db.query("select id::text, owner, metadata_uri from chain.agent where registered_tx = $1", [
        result.txHash,
      ]);
      return r.rows[0];
    });
    assert.equal(row.owner.toLowerCase(), owner.toLowerCase());
    assert.equal(row.metadata_uri, "ipfs://bafkreifoundationtest");
  });

  it("the relayer refuses calls outside its allowlist and unauthenticated callers", async () => {
    const relayer = new RelayerClient(stack.relayerUrl, stack.secrets.relayerToken);
    await assert.rejects(
      relayer.call(
        "AgentIdentity",
        AgentIdentityAbi,
        "grantRole" as never,
        [`0x${"00".repeat(32)}`, deployments.treasury] as never,
      ),
      (e: Error & { code?: string }) => e.code === "NOT_ALLOWED",
    );
    const anonymous = new RelayerClient(stack.relayerUrl, "wrong-token-wrong-token");
    await assert.rejects(
      anonymous.call("AgentIdentity", AgentIdentityAbi, "mint", [
        "0x000000000000000000000000000000000000dEaD",
        "ipfs://x",
      ]),
      (e: Error & { status?: number }) => e.status === 401,
    );
  });
});

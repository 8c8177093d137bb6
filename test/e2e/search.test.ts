// POST /api/intelligence/search: paid (spec x-payment here), full text + filters over api.agent_search, score order.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { searchResponse } from "@agenthub/api/routes/intelligence/search";
import type { Address } from "viem";
import { registerAgent } from "../support/agents.ts";
import { signPayment } from "../support/payments.ts";
import { api, db, newWallet, waitUntil } from "../support/stack.ts";

after(() => db.end());

const SEARCH = "/api/intelligence/search";
let recipient: Address;
const payer = newWallet();

const RESULT_KEYS = [
  "capabilities",
  "domains",
  "id",
  "name",
  "programmingLangs",
  "reputation",
  "tools",
  "walletAddress",
];
const REPUTATION_KEYS = [
  "attestationCount",
  "attestationScore",
  "avgResponseTimeMs",
  "completions",
  "score",
  "uptimePercentage",
  "verificationBadges",
];

async function search(body: Record<string, unknown>) {
  const header = await signPayment(payer.account, { recipient, endpoint: SEARCH });
  const res = await api("POST", SEARCH, { body, headers: { "x-payment": header } });
  if (res.status === 200) {
    // Postgres writes the results JSON: it must be exactly the documented response shape.
    searchResponse.parse(res.body);
    assert.deepEqual(Object.keys(res.body).sort(), ["results", "total", "totalExact"]);
    for (const r of res.body.results) {
      assert.deepEqual(Object.keys(r).sort(), RESULT_KEYS);
      assert.deepEqual(Object.keys(r.reputation).sort(), REPUTATION_KEYS);
    }
  }
  return res;
}

// A marker word no other test uses, so results are exactly our agents.
const tag = `zq${Math.random().toString(36).slice(2, 8)}`;
type Agent = { agentId: number; walletAddress: Address };
const agents = {} as Record<"alpha" | "beta" | "gamma", Agent>;

/**
 * Pins an agent's score and uptime. The reputation engine runs beside the tests (bulk job every 5 s) and writes a
 * row only when its inputs' fingerprint changes: wait for its first computation of the agent, then overwrite the
 * figures and keep the fingerprint, so later passes (same inputs: no webhook, no runs) leave them alone.
 */
async function setReputation(agentId: number, score: number, uptime: number, computedWhen = "true") {
  await waitUntil(`reputation engine computed agent ${agentId}`, async () => {
    const { rows } = await db.query(
      `select 1 from api.reputation where agent_id = $1 and fingerprint is not null and ${computedWhen}`,
      [agentId],
    );
    return rows.length > 0;
  });
  const { rowCount } = await db.query(
    `update api.reputation set score = $2, uptime_percentage = $3, avg_response_time_ms = 120, attestation_count = 2,
       attestation_score = 4.5, verification_badges = '{}'
     where agent_id = $1`,
    [agentId, score, uptime],
  );
  assert.equal(rowCount, 1);
}

before(async () => {
  recipient = (await api("GET", "/api/config")).body.platformRecipient;
  const profiles = {
    alpha: {
      name: `Alphaworks-${tag}`,
      description: `Writes python test suites. ${tag}`,
      capabilities: ["Coding", "Testing"],
      programmingLangs: ["Python"],
      domains: ["finance"],
      tools: ["git", "docker"],
    },
    beta: {
      name: `Betamind-${tag}`,
      description: `Research summaries about markets. ${tag}`,
      capabilities: ["research"],
      programmingLangs: ["rust"],
      domains: ["healthcare"],
      tools: ["git"],
    },
    gamma: {
      name: `Gammaray-${tag}`,
      description: `Audits smart contracts. ${tag}`,
      capabilities: ["coding", "security-audit"],
      programmingLangs: ["solidity", "rust"],
      domains: ["defi", "finance"],
      tools: ["foundry", "git", "docker"],
    },
  };
  for (const [key, profile] of Object.entries(profiles))
    agents[key as keyof typeof profiles] = await registerAgent(profile);
  // The badge first: it is an input of gamma's reputation, so the engine must have seen it before scores are pinned.
  await db.query(
    `insert into api.verification (agent_id, type, status, domain, badge, created_at, verified_at, expires_at)
     values ($1, 'domain', 'VERIFIED', $2, 'domain-verified', now(), now(), now() + interval '1 year')`,
    [agents.gamma.agentId, `${tag}.example`],
  );
  await setReputation(agents.alpha.agentId, 70, 99);
  await setReputation(agents.beta.agentId, 90, 80);
  await setReputation(agents.gamma.agentId, 40, 95, "'domain-verified' = any(verification_badges)");
});

const ids = (res: { body: { results: { id: number }[] } }) => res.body.results.map((r) => r.id);

describe("search: text and filters", () => {
  it("matches the query by full text and orders by score descending", async () => {
    const res = await search({ query: tag });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.deepEqual(ids(res), [agents.beta.agentId, agents.alpha.agentId, agents.gamma.agentId]);
    assert.equal(res.body.total, 3);
    assert.equal(res.body.totalExact, true);
    const alpha = res.body.results[1];
    assert.equal(alpha.walletAddress, agents.alpha.walletAddress);
    assert.equal(alpha.name, `Alphaworks-${tag}`);
    assert.deepEqual(alpha.capabilities, ["Coding", "Testing"]);
    assert.deepEqual(alpha.programmingLangs, ["Python"]);
    assert.deepEqual(alpha.reputation, {
      score: 70,
      completions: 0,
      uptimePercentage: 99,
      avgResponseTimeMs: 120,
      attestationCount: 2,
      attestationScore: 4.5,
      verificationBadges: [],
    });
  });

  it("stems natural language: 'testing python' finds the agent that writes python test suites", async () => {
    const res = await search({ query: `${tag} testing python` });
    assert.deepEqual(ids(res), [agents.alpha.agentId]);
  });

  it("capabilities and tools are all-of, programmingLangs and domains any-of, tags case-insensitive", async () => {
    assert.deepEqual(ids(await search({ query: tag, capabilities: ["coding"] })), [
      agents.alpha.agentId,
      agents.gamma.agentId,
    ]);
    assert.deepEqual(ids(await search({ query: tag, capabilities: ["CODING", "security-audit"] })), [
      agents.gamma.agentId,
    ]);
    assert.deepEqual(ids(await search({ query: tag, programmingLangs: ["python", "solidity"] })), [
      agents.alpha.agentId,
      agents.gamma.agentId,
    ]);
    assert.deepEqual(ids(await search({ query: tag, domains: ["healthcare", "defi"] })), [
      agents.beta.agentId,
      agents.gamma.agentId,
    ]);
    assert.deepEqual(ids(await search({ query: tag, tools: ["git", "docker"] })), [
      agents.alpha.agentId,
      agents.gamma.agentId,
    ]);
    assert.deepEqual(ids(await search({ query: tag, tools: ["git", "docker", "foundry"] })), [agents.gamma.agentId]);
  });

  it("minScore, minUptime and verifiedOnly", async () => {
    assert.deepEqual(ids(await search({ query: tag, minScore: 70 })), [agents.beta.agentId, agents.alpha.agentId]);
    assert.deepEqual(ids(await search({ query: tag, minUptime: 95 })), [agents.alpha.agentId, agents.gamma.agentId]);
    assert.deepEqual(ids(await search({ query: tag, verifiedOnly: true })), [agents.gamma.agentId]);
    assert.deepEqual(ids(await search({ query: tag, minScore: 50, verifiedOnly: true })), []);
  });

  it("follows reputation changes (the search index is kept in sync by triggers)", async () => {
    await setReputation(agents.gamma.agentId, 95, 95);
    assert.deepEqual(ids(await search({ query: tag })), [
      agents.gamma.agentId,
      agents.beta.agentId,
      agents.alpha.agentId,
    ]);
    await setReputation(agents.gamma.agentId, 40, 95);
  });

  it("a misspelt single-word name falls back to trigram similarity", async () => {
    const res = await search({ query: `Betamnd-${tag}` });
    assert.equal(res.status, 200);
    // Full text finds nothing for the typo; trigram similarity finds Betamind (and, through the shared marker,
    // its siblings), still ordered by score.
    assert.equal(ids(res)[0], agents.beta.agentId);
    const none = await search({ query: `Qwxyzv-${Math.random().toString(36).slice(2, 10)}` });
    assert.deepEqual(none.body, { results: [], total: 0, totalExact: true });
  });

  it("limit cuts the page; total is exact when everything fits or was counted, else an estimate", async () => {
    const all = await search({ query: tag, limit: 3 });
    assert.equal(all.body.total, 3);
    assert.equal(all.body.totalExact, true);
    const res = await search({ query: tag, limit: 2 });
    assert.deepEqual(ids(res), [agents.beta.agentId, agents.alpha.agentId]);
    // Which pass answers depends on the search-stats job's last look at the table (the next test pins both).
    if (res.body.totalExact) assert.equal(res.body.total, 3);
    else assert.ok(res.body.total >= 3);
  });

  it("answers the same through the score walk and the GIN pass (the statistics gate only picks the order)", async () => {
    // Statistics in which the tag is rarer than anything listed (as a rare term is among 1M agents): the walk is
    // skipped and the GIN pass counts every match.
    await db.query("delete from api.search_share");
    await db.query("insert into api.search_share (key, share) values ('w:python', 0.4), ('cap:coding', 0.3)");
    const viaGin = await search({ query: tag, limit: 2, minUptime: 0 }); // a key no other test cached
    assert.equal(viaGin.status, 200);
    assert.equal(viaGin.body.totalExact, true);
    assert.equal(viaGin.body.total, 3);
    // Without statistics the walk runs first and finds limit + 1 matches among the best agents: an estimate.
    await db.query("delete from api.search_share");
    try {
      const viaWalk = await search({ query: tag, limit: 2, minScore: 0 }); // another cache key, same matches
      assert.equal(viaWalk.status, 200);
      assert.equal(viaWalk.body.totalExact, false);
      assert.deepEqual(ids(viaWalk), ids(viaGin));
      assert.deepEqual(ids(viaWalk), [agents.beta.agentId, agents.alpha.agentId]);
    } finally {
      await db.query("analyze api.agent_search");
      await db.query("select api.refresh_search_shares()");
    }
  });

  it("the gate's share does not count a query word twice when a required tag implies it", async () => {
    // The search vector holds the tags' own words: capability "writing" implies the lexeme 'write', and so does a
    // lone programming language or domain; an any-of list of several does not.
    await db.query("delete from api.search_share");
    await db.query(
      `insert into api.search_share (key, share) values ('w:write', 0.1), ('cap:writing', 0.1), ('w:python', 0.4),
         ('lang:python', 0.4), ('lang:rust', 0.2), ('cap:design', 0.5), ('uptime:90', 0.5)`,
    );
    try {
      const share = async (q: string, caps: string[] | null, langs: string[] | null) =>
        Number(
          (
            await db.query<{ s: number }>(
              "select api.search_walk_share($1, $2::text[], $3::text[], null, null, false, 90) s",
              [q, caps, langs],
            )
          ).rows[0]!.s,
        );
      const near = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-6 * b, `${a} vs ${b}`);
      near(await share("writing", ["writing"], null), 0.1 * 0.5); // not 0.1 x 0.1 x 0.5
      near(await share("writing", ["design"], null), 0.1 * 0.5 * 0.5); // independent: multiplied
      near(await share("python", null, ["python"]), 0.4 * 0.5);
      near(await share("python", null, ["python", "rust"]), 0.4 * 0.6 * 0.5);
    } finally {
      await db.query("analyze api.agent_search");
      await db.query("select api.refresh_search_shares()");
    }
  });

  it("pages through more than 100 matches by score", async () => {
    const crowd = `zc${Math.random().toString(36).slice(2, 8)}`;
    const base = 900_000_000 + Math.floor(Math.random() * 1_000_000) * 200;
    await db.query(
      `insert into api.agent_profile (agent_id, name, description, capabilities, metadata_cid)
       select $1::bigint + i, 'crowd-' || i, $2, '{crowd}', 'bafkreicrowd' || i from generate_series(1, 150) i`,
      [base, `member of the ${crowd} crowd`],
    );
    try {
      await db.query("analyze api.agent_search");
      const res = await search({ query: crowd, limit: 5 });
      assert.equal(res.status, 200);
      assert.equal(res.body.results.length, 5);
      // Counted exactly when the search went through the GIN pass (a rare term), else estimated.
      if (res.body.totalExact) assert.equal(res.body.total, 150);
      else assert.ok(res.body.total >= 6, `total ${res.body.total}`);
      const exact = await search({ query: crowd, capabilities: ["crowd"], minScore: 50, limit: 100 });
      assert.equal(exact.body.results.length, 100);
    } finally {
      await db.query("delete from api.agent_profile where agent_id between $1::bigint + 1 and $1::bigint + 150", [
        base,
      ]);
    }
    const gone = await search({ query: crowd });
    assert.deepEqual(gone.body, { results: [], total: 0, totalExact: true });
  });

  it("filters without a query search every agent", async () => {
    const res = await search({ capabilities: ["security-audit"], domains: ["defi"], tools: ["foundry"], limit: 100 });
    assert.equal(res.status, 200);
    assert.ok(ids(res).includes(agents.gamma.agentId));
    const scores = res.body.results.map((r: { reputation: { score: number } }) => r.reputation.score);
    assert.deepEqual(
      scores,
      [...scores].sort((a, b) => b - a),
    );
  });

  it("answers 200 to every valid body shape: no filters, only a limit, only score/uptime/verified", async () => {
    for (const body of [
      {},
      { limit: 5 },
      { minScore: 0 },
      { minScore: 10, limit: 3 },
      { minUptime: 0 },
      { verifiedOnly: true },
      { minScore: 0, minUptime: 0, verifiedOnly: false, limit: 1 },
    ]) {
      const res = await search(body);
      assert.equal(res.status, 200, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      const limit = (body as { limit?: number }).limit ?? 20;
      assert.ok(res.body.results.length <= limit);
      const scores = res.body.results.map((r: { reputation: { score: number } }) => r.reputation.score);
      assert.deepEqual(
        scores,
        [...scores].sort((a, b) => b - a),
      );
    }
  });

  it("validates the body (limit 1-100, types) with 400 VALIDATION_ERROR, and the payment is not consumed", async () => {
    const header = await signPayment(payer.account, { recipient, endpoint: SEARCH });
    for (const body of [{ limit: 101 }, { limit: 0 }, { capabilities: "coding" }, { minScore: "high" }]) {
      const res = await api("POST", SEARCH, { body, headers: { "x-payment": header } });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(res.body.error.code, "VALIDATION_ERROR");
    }
    const ok = await api("POST", SEARCH, { body: { query: tag }, headers: { "x-payment": header } });
    assert.equal(ok.status, 200);
  });

  it("is described in the OpenAPI document with the payment headers and the 402 answer", async () => {
    const doc = (await api("GET", "/openapi.json")).body;
    const op = doc.paths[SEARCH].post;
    const headers = op.parameters.filter((p: { in: string }) => p.in === "header").map((p: { name: string }) => p.name);
    assert.ok(headers.includes("x-payment"));
    assert.ok(headers.includes("payment-signature"));
    assert.ok(op.responses["402"]);
    assert.ok(op.responses["402"].headers["PAYMENT-REQUIRED"]);
    assert.ok(op.requestBody.content["application/json"].schema);
  });
});

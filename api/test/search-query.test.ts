import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { chainViews } from "../src/db/index.ts";
import { buildWhere, hasIndexedCondition, SCORE_WALK_ROWS, searchStatement } from "../src/stores/search/query.ts";

const { names } = chainViews("chain");

describe("search filters", () => {
  it("maps each filter to its semantics, tags lower-cased and de-duplicated", () => {
    const { sql, params } = buildWhere({
      query: "  python testing ",
      capabilities: ["Coding", "coding", "Testing"],
      programmingLangs: ["Rust"],
      domains: ["DeFi"],
      tools: ["git"],
      minScore: 50,
      minUptime: 90,
      verifiedOnly: true,
      limit: 20,
    });
    // Cheap conditions first: the score walk evaluates them in this order, the text match last.
    assert.equal(
      sql,
      "where s.verified and s.score >= $1::float8 and s.uptime_percentage >= $2::float8 and " +
        "s.capabilities @> $3::text[] and s.programming_langs && $4::text[] and s.domains && $5::text[] and " +
        "s.tools @> $6::text[] and s.search @@ websearch_to_tsquery('english', $7)",
    );
    assert.deepEqual(params, [50, 90, ["coding", "testing"], ["rust"], ["defi"], ["git"], "python testing"]);
  });

  it("omits absent and empty filters, and uses trigram similarity for the fuzzy fallback", () => {
    assert.deepEqual(buildWhere({ capabilities: [], query: " ", limit: 5 }), { sql: "", params: [] });
    assert.deepEqual(buildWhere({ query: "Betamnd", limit: 5 }, true), {
      sql: "where s.name % $1",
      params: ["Betamnd"],
    });
  });

  it("only filters a GIN index can drive count as indexed conditions", () => {
    assert.equal(hasIndexedCondition({ limit: 5, minScore: 10, minUptime: 50, verifiedOnly: true }), false);
    assert.equal(hasIndexedCondition({ limit: 5, query: "  ", capabilities: [" "] }), false);
    assert.equal(hasIndexedCondition({ limit: 5, tools: ["git"] }), true);
    assert.equal(hasIndexedCondition({ limit: 5, query: "rust" }), true);
  });

  it("the walk reads a bounded prefix of the score order, gated by the filters' estimated share", () => {
    const f = { query: "rust", capabilities: ["Coding"], verifiedOnly: true, limit: 20 };
    const walk = searchStatement("walk", names, f, false);
    assert.match(walk.text, new RegExp(`order by score desc, agent_id limit ${SCORE_WALK_ROWS}\\)`));
    assert.match(walk.text, /api\.search_walk_share\(/);
    // filters, the cap (limit + 1), the limit, then the gate's inputs: query, tags (lower-cased, null when
    // absent), verifiedOnly, minUptime, minScore for the total's estimate, then the share the gate needs
    assert.deepEqual(walk.values, [
      ["coding"],
      "rust",
      21,
      20,
      "rust",
      ["coding"],
      null,
      null,
      null,
      true,
      null,
      null,
      21 / SCORE_WALK_ROWS,
    ]);
    // Named statements: the same shape shares one name, another shape gets another.
    assert.equal(searchStatement("walk", names, { ...f, query: "go" }, false).name, walk.name);
    assert.notEqual(searchStatement("match", names, f, false).name, walk.name);
    // No text, tag or verified filter: no gate.
    const plain = searchStatement("walk", names, { minScore: 10, limit: 20 }, false);
    assert.doesNotMatch(plain.text, /search_walk_share/);
    // The estimate's inputs are passed all the same.
    assert.match(plain.text, /api\.search_estimate\(/);
    assert.deepEqual(plain.values, [10, 21, 20, null, null, null, null, null, false, null, 10]);
    // Postgres cannot type a parameter no statement text uses ("could not determine data type of parameter").
    for (const body of [{ limit: 5 }, { limit: 20, minScore: 10 }, { limit: 20, minUptime: 5 }, f]) {
      for (const pass of ["walk", "rest", "match"] as const) {
        const q = searchStatement(pass, names, body, false);
        for (let i = 1; i <= (q.values?.length ?? 0); i++) {
          assert.match(q.text, new RegExp(`\\$${i}(?!\\d)`), `${pass} ${JSON.stringify(body)} uses $${i}`);
        }
      }
    }
    // The match pass orders by score + 0 (off the score index) and counts every match.
    const match = searchStatement("match", names, f, false);
    assert.match(match.text, /count\(\*\) over \(\)/);
    assert.match(match.text, /order by s\.score \+ 0 desc/);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { buildWhere } from "../src/routes/intelligence/search-query.ts";

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
    assert.equal(
      sql,
      "where s.search @@ websearch_to_tsquery('english', $1) and s.capabilities @> $2::text[] and " +
        "s.programming_langs && $3::text[] and s.domains && $4::text[] and s.tools @> $5::text[] and " +
        "s.score >= $6::float8 and s.uptime_percentage >= $7::float8 and s.verified",
    );
    assert.deepEqual(params, ["python testing", ["coding", "testing"], ["rust"], ["defi"], ["git"], 50, 90]);
  });

  it("omits absent and empty filters, and uses trigram similarity for the fuzzy fallback", () => {
    assert.deepEqual(buildWhere({ capabilities: [], query: " ", limit: 5 }), { sql: "", params: [] });
    assert.deepEqual(buildWhere({ query: "Betamnd", limit: 5 }, true), {
      sql: "where s.name % $1",
      params: ["Betamnd"],
    });
  });
});

// SQL for the paid agent search, over api.agent_search (031_agent_search.sql). Pure string building + one query.
import { createHash } from "node:crypto";
import type pg from "pg";

export interface SearchFilters {
  query?: string;
  /** All of them (tags compare case-insensitively). */
  capabilities?: string[];
  /** At least one of them. */
  programmingLangs?: string[];
  /** At least one of them. */
  domains?: string[];
  /** All of them. */
  tools?: string[];
  minScore?: number;
  minUptime?: number;
  verifiedOnly?: boolean;
  limit: number;
}

const tags = (v: string[] | undefined) => [...new Set((v ?? []).map((t) => t.trim().toLowerCase()))].filter(Boolean);

/**
 * The WHERE clause; `fuzzy` swaps full-text for a trigram match on the name. Cheap conditions come first: in the
 * score-walk pass Postgres evaluates them in this order, so most rows are rejected before the text match runs.
 */
export function buildWhere(f: SearchFilters, fuzzy = false): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = [];
  if (f.verifiedOnly) where.push("s.verified");
  if (f.minScore !== undefined) where.push(`s.score >= ${p(f.minScore)}::float8`);
  if (f.minUptime !== undefined) where.push(`s.uptime_percentage >= ${p(f.minUptime)}::float8`);
  const caps = tags(f.capabilities);
  if (caps.length) where.push(`s.capabilities @> ${p(caps)}::text[]`);
  const langs = tags(f.programmingLangs);
  if (langs.length) where.push(`s.programming_langs && ${p(langs)}::text[]`);
  const domains = tags(f.domains);
  if (domains.length) where.push(`s.domains && ${p(domains)}::text[]`);
  const tools = tags(f.tools);
  if (tools.length) where.push(`s.tools @> ${p(tools)}::text[]`);
  const q = f.query?.trim();
  if (q) {
    where.push(fuzzy ? `s.name % ${p(q)}` : `s.search @@ websearch_to_tsquery('english', ${p(q)})`);
  }
  return { sql: where.length ? `where ${where.join(" and ")}` : "", params };
}

/** Whether a GIN index can drive the search (text or tag conditions), rather than the score order alone. */
export function hasIndexedCondition(f: SearchFilters): boolean {
  return (
    !!f.query?.trim() || [f.capabilities, f.programmingLangs, f.domains, f.tools].some((list) => tags(list).length > 0)
  );
}

export interface SearchResult {
  id: number;
  walletAddress: string | null;
  name: string;
  capabilities: string[];
  programmingLangs: string[];
  domains: string[];
  tools: string[];
  reputation: {
    score: number;
    completions: number;
    uptimePercentage: number;
    avgResponseTimeMs: number;
    attestationCount: number;
    attestationScore: number;
    verificationBadges: string[];
  };
}

interface Row {
  agent_id: string;
  score: number;
  name: string;
  wallet_address: string | null;
  display_capabilities: string[];
  display_programming_langs: string[];
  display_domains: string[];
  display_tools: string[];
  uptime_percentage: number;
  avg_response_time_ms: number;
  attestation_count: number;
  attestation_score: number;
  verification_badges: string[];
  completions: number;
  matched?: number;
}

const DISPLAY_COLUMNS = [
  "agent_id",
  "score",
  "name",
  "wallet_address",
  "display_capabilities",
  "display_programming_langs",
  "display_domains",
  "display_tools",
  "uptime_percentage",
  "avg_response_time_ms",
  "attestation_count",
  "attestation_score",
  "verification_badges",
];
const display = (alias: string) => DISPLAY_COLUMNS.map((c) => `${alias}.${c}`).join(", ");
const DISPLAY = display("s");
/** Every filter column, all stored in agent_search_walk_idx: the walk is an index-only scan. */
const WALK_COLUMNS =
  "agent_id, score, verified, uptime_percentage, capabilities, programming_langs, domains, tools, search";

/**
 * Rows of the score index the first pass reads (index-only, ~0.5 µs a row). Any filter set that keeps at least
 * ~limit/SCORE_WALK_ROWS of the agents (0.2% for a page of 20) is answered from this prefix; rarer ones go to the
 * GIN-driven pass.
 */
export const SCORE_WALK_ROWS = 10_000;

/** Named statements: Postgres parses and plans each distinct search shape once per connection. */
function statement(text: string, values: unknown[]): pg.QueryConfig {
  return { name: `search_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`, text, values };
}

const withCompletions = (schema: string, inner: string) =>
  `select m.*, coalesce(st.completions, 0)::int completions
     from (${inner}) m
     left join ${schema}.agent_run_stats st on st.agent_id = m.agent_id
    order by m.score desc, m.agent_id`;

export type SearchPass = "walk" | "rest" | "match";

/**
 * The statement of one pass (see searchPage). "walk": the best SCORE_WALK_ROWS agents by score, filtered; "rest":
 * on down the score index (no GIN-able condition); "match": every match through the GIN indexes, counted.
 */
export function searchStatement(
  pass: SearchPass,
  indexerSchema: string,
  f: SearchFilters,
  fuzzy: boolean,
  cap: number,
): pg.QueryConfig {
  const { sql, params } = buildWhere(f, fuzzy);
  const n = params.length;
  // Filters that keep too small a share of the agents cannot leave `cap` matches among the walked rows: the walk
  // is then skipped outright (a one-time filter on the statistics of 033_agent_search_speed.sql).
  const gated = pass === "walk" && (hasIndexedCondition(f) || f.verifiedOnly);
  if (gated) {
    const list = (v: string[] | undefined) => (tags(v).length ? tags(v) : null);
    params.push(f.query?.trim() || null, list(f.capabilities), list(f.programmingLangs), list(f.domains));
    params.push(list(f.tools), !!f.verifiedOnly, cap / SCORE_WALK_ROWS);
  }
  const gate = gated
    ? `where api.search_walk_share($${n + 2}, $${n + 3}::text[], $${n + 4}::text[], $${n + 5}::text[],
         $${n + 6}::text[], $${n + 7}) >= $${n + 8}::real`
    : "";
  const inner =
    pass === "walk"
      ? `select ${display("d")}
           from (select s.agent_id, s.score
                   from (select ${WALK_COLUMNS} from api.agent_search ${gate}
                          order by score desc, agent_id limit ${SCORE_WALK_ROWS}) s ${sql}
                  order by s.score desc, s.agent_id limit $${n + 1}) w
           join api.agent_search d on d.agent_id = w.agent_id`
      : pass === "rest"
        ? `select ${DISPLAY} from api.agent_search s ${sql} order by s.score desc, s.agent_id limit $${n + 1}`
        : // `score + 0` keeps the planner off the score index: a GIN index finds the (few) matches.
          `select ${DISPLAY}, count(*) over ()::int matched from api.agent_search s ${sql}
            order by s.score + 0 desc, s.agent_id limit $${n + 1}`;
  return statement(withCompletions(indexerSchema, inner), [...params.slice(0, n), cap, ...params.slice(n)]);
}

/**
 * Two passes, each with a bounded plan (the planner's single choice between "walk the score index and filter" and
 * "GIN bitmap, then sort" misjudged correlated filters by 100x at 1M agents):
 * 1. walk: the first SCORE_WALK_ROWS agents by score, filtered. `cap` matches there are the global best `cap`
 *    (every agent outside the prefix scores lower), so the page is final; the total is then estimated.
 * 2. only when the prefix held fewer than `cap` matches, i.e. the filters are selective: "match", every match
 *    through the GIN indexes (a partial one for verifiedOnly), counted exactly, best `cap` by score; or, with
 *    only score, uptime or verified conditions (nothing for a GIN), "rest": on down the score index (the partial
 *    one for verifiedOnly) until `cap` matches, since counting them all would read the whole table.
 */
export async function searchPage(
  pool: pg.Pool,
  indexerSchema: string,
  f: SearchFilters,
  fuzzy: boolean,
  cap: number,
): Promise<{ results: SearchResult[]; matched: number; exact: boolean }> {
  const run = (pass: SearchPass) => pool.query<Row>(searchStatement(pass, indexerSchema, f, fuzzy, cap));
  if (!fuzzy) {
    const walk = await run("walk");
    if (walk.rows.length >= cap) return { results: walk.rows.map(toResult), matched: cap, exact: false };
  }
  if (!hasIndexedCondition(f)) {
    const rest = await run("rest");
    return { results: rest.rows.map(toResult), matched: rest.rows.length, exact: rest.rows.length < cap };
  }
  const match = await run("match");
  return { results: match.rows.map(toResult), matched: match.rows[0]?.matched ?? 0, exact: true };
}

function toResult(r: Row): SearchResult {
  return {
    id: Number(r.agent_id),
    walletAddress: r.wallet_address,
    name: r.name,
    capabilities: r.display_capabilities,
    programmingLangs: r.display_programming_langs,
    domains: r.display_domains,
    tools: r.display_tools,
    reputation: {
      score: r.score,
      completions: r.completions,
      uptimePercentage: r.uptime_percentage,
      avgResponseTimeMs: r.avg_response_time_ms,
      attestationCount: r.attestation_count,
      attestationScore: r.attestation_score,
      verificationBadges: r.verification_badges,
    },
  };
}

/** Postgres's estimate of how many agents match (EXPLAIN, no execution). */
export async function estimateMatches(pool: pg.Pool, f: SearchFilters, fuzzy: boolean): Promise<number> {
  const { sql, params } = buildWhere(f, fuzzy);
  const { rows } = await pool.query<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(
    `explain (format json) select 1 from api.agent_search s ${sql}`,
    params,
  );
  return Math.round(rows[0]?.["QUERY PLAN"][0]?.Plan["Plan Rows"] ?? 0);
}

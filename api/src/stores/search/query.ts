// SQL for the paid agent search, over api.agent_search (031_agent_search.sql). Pure string building + one query.
import { createHash } from "node:crypto";
import type pg from "pg";
import type { ChainNames } from "../../db/index.ts";
import { visibleAgentIds } from "../org-scope.ts";

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
  /** Only agents registered under this organization (searches made with its key). */
  orgId?: string;
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
  if (f.orgId !== undefined) where.push(`s.agent_id in ${visibleAgentIds(p(f.orgId))}`);
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
 * Rows of the score index the first pass reads at most (index-only, ~0.5 µs a row; it stops at `limit + 1`
 * matches). Any filter set that keeps at least ~limit/SCORE_WALK_ROWS of the agents (0.07% for a page of 20) is
 * answered from this prefix; rarer ones, which the GIN pass answers in a few ms, skip it (the gate).
 */
export const SCORE_WALK_ROWS = 30_000;

/** Named statements: Postgres parses and plans each distinct search shape once per connection. */
function statement(text: string, values: unknown[]): pg.QueryConfig {
  return { name: `search_${createHash("sha1").update(text).digest("hex").slice(0, 16)}`, text, values };
}

/**
 * The page as JSON text built by Postgres: the first `limit` rows (of `limit + 1` fetched) with their completions,
 * in the response's shape, so the API passes it through without parsing rows or re-serializing them.
 */
const pageJson = (schema: ChainNames, inner: string, limitParam: string, estimate = "null::bigint") =>
  `select count(*)::int found, max(m.matched)::int matched, ${estimate} estimate,
          coalesce(json_agg(json_build_object(
            'id', m.agent_id, 'walletAddress', m.wallet_address, 'name', m.name,
            'capabilities', m.display_capabilities, 'programmingLangs', m.display_programming_langs,
            'domains', m.display_domains, 'tools', m.display_tools,
            'reputation', json_build_object(
              'score', m.score, 'completions', coalesce(st.completions, 0)::int,
              'uptimePercentage', m.uptime_percentage, 'avgResponseTimeMs', m.avg_response_time_ms,
              'attestationCount', m.attestation_count, 'attestationScore', m.attestation_score,
              'verificationBadges', m.verification_badges))
            order by m.score desc, m.agent_id) filter (where m.rn <= ${limitParam}), '[]')::text results
     from (select x.*, row_number() over (order by x.score desc, x.agent_id) rn from (${inner}) x) m
     left join ${schema.agentRunStats} st on st.agent_id = m.agent_id`;

export type SearchPass = "walk" | "rest" | "match";

/**
 * The statement of one pass (see searchPage). "walk": the best SCORE_WALK_ROWS agents by score, filtered; "rest":
 * on down the score index (no GIN-able condition); "match": every match through the GIN indexes, counted.
 */
export function searchStatement(pass: SearchPass, views: ChainNames, f: SearchFilters, fuzzy: boolean): pg.QueryConfig {
  const { sql, params } = buildWhere(f, fuzzy);
  const n = params.length;
  // One row past the page tells whether more exist.
  const cap = f.limit + 1;
  // Filters that keep too small a share of the agents cannot leave `cap` matches among the walked rows: the walk
  // is then skipped outright (a one-time filter on the statistics of 033_agent_search_speed.sql).
  const gated = pass === "walk" && (hasIndexedCondition(f) || f.verifiedOnly || f.minUptime !== undefined);
  const list = (v: string[] | undefined) => (tags(v).length ? tags(v) : null);
  const shareArgs = `$${n + 3}, $${n + 4}::text[], $${n + 5}::text[], $${n + 6}::text[], $${n + 7}::text[],
    $${n + 8}, $${n + 9}::float8`;
  if (pass === "walk") {
    params.push(f.query?.trim() || null, list(f.capabilities), list(f.programmingLangs), list(f.domains));
    params.push(list(f.tools), !!f.verifiedOnly, f.minUptime ?? null, f.minScore ?? null);
    // Only a gated walk names the share threshold: Postgres refuses a parameter no statement text types.
    if (gated) params.push(cap / SCORE_WALK_ROWS);
  }
  const gate = gated ? `where api.search_walk_share(${shareArgs}) >= $${n + 11}::real` : "";
  // When the walk answers, the total is estimated in the same statement (033_agent_search_speed.sql).
  const estimate = pass === "walk" ? `api.search_estimate(${shareArgs}, $${n + 10}::float8)` : undefined;
  const inner =
    pass === "walk"
      ? `select ${display("d")}, null::int matched
           from (select s.agent_id, s.score
                   from (select ${WALK_COLUMNS} from api.agent_search ${gate}
                          order by score desc, agent_id limit ${SCORE_WALK_ROWS}) s ${sql}
                  order by s.score desc, s.agent_id limit $${n + 1}) w
           join api.agent_search d on d.agent_id = w.agent_id`
      : pass === "rest"
        ? `select ${DISPLAY}, null::int matched from api.agent_search s ${sql}
            order by s.score desc, s.agent_id limit $${n + 1}`
        : // `score + 0` keeps the planner off the score index: a GIN index finds the (few) matches.
          `select ${DISPLAY}, count(*) over ()::int matched from api.agent_search s ${sql}
            order by s.score + 0 desc, s.agent_id limit $${n + 1}`;
  return statement(pageJson(views, inner, `$${n + 2}`, estimate), [
    ...params.slice(0, n),
    cap,
    f.limit,
    ...params.slice(n),
  ]);
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
export interface SearchPage {
  /** The results array as JSON text (at most `limit` agents). */
  resultsJson: string;
  matched: number;
  exact: boolean;
  /** When not exact: the statistics' estimate of all matches, if the statistics exist. */
  estimate: number | null;
}

/** One pass's answer row: matches found (capped), exact matches (match pass), the estimate, the page as JSON. */
export interface PassRow {
  found: number;
  matched: number | null;
  estimate: number | null;
  results: string;
}

export async function searchPage(
  pool: pg.Pool,
  views: ChainNames,
  f: SearchFilters,
  fuzzy: boolean,
): Promise<SearchPage> {
  return runSearchPasses(f, fuzzy, async (pass) => {
    const { rows } = await pool.query<Omit<PassRow, "estimate"> & { estimate: string | null }>(
      searchStatement(pass, views, f, fuzzy),
    );
    return passRow(rows[0]);
  });
}

/** A pass's row as the statement returns it (no row: nothing found). */
export function passRow(row: (Omit<PassRow, "estimate"> & { estimate: string | null }) | undefined): PassRow {
  if (!row) return { found: 0, matched: null, estimate: null, results: "[]" };
  return { ...row, estimate: row.estimate === null ? null : Number(row.estimate) };
}

/**
 * Which passes a search runs, in order, and the page they give (above). `run` executes one pass: the API's pool,
 * or the benchmarks' profilers timing or explaining it, so they measure exactly the API's choice.
 */
export async function runSearchPasses(
  f: SearchFilters,
  fuzzy: boolean,
  run: (pass: SearchPass) => Promise<PassRow>,
): Promise<SearchPage> {
  const cap = f.limit + 1;
  // An organization's agents are few: every match through its agent list, counted exactly.
  if (f.orgId !== undefined) {
    const match = await run("match");
    return { resultsJson: match.results, matched: match.matched ?? 0, exact: true, estimate: null };
  }
  if (!fuzzy) {
    const walk = await run("walk");
    if (walk.found >= cap) return { resultsJson: walk.results, matched: cap, exact: false, estimate: walk.estimate };
  }
  if (!hasIndexedCondition(f)) {
    const rest = await run("rest");
    return { resultsJson: rest.results, matched: rest.found, exact: rest.found < cap, estimate: null };
  }
  const match = await run("match");
  return { resultsJson: match.results, matched: match.matched ?? 0, exact: true, estimate: null };
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

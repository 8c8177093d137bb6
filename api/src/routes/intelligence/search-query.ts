// SQL for the paid agent search, over api.agent_search (031_agent_search.sql). Pure string building + one query.
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

/** The WHERE clause; `fuzzy` swaps full-text for a trigram match on the name. */
export function buildWhere(f: SearchFilters, fuzzy = false): { sql: string; params: unknown[] } {
  const params: unknown[] = [];
  const p = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where: string[] = [];
  const q = f.query?.trim();
  if (q) {
    where.push(fuzzy ? `s.name % ${p(q)}` : `s.search @@ websearch_to_tsquery('english', ${p(q)})`);
  }
  const caps = tags(f.capabilities);
  if (caps.length) where.push(`s.capabilities @> ${p(caps)}::text[]`);
  const langs = tags(f.programmingLangs);
  if (langs.length) where.push(`s.programming_langs && ${p(langs)}::text[]`);
  const domains = tags(f.domains);
  if (domains.length) where.push(`s.domains && ${p(domains)}::text[]`);
  const tools = tags(f.tools);
  if (tools.length) where.push(`s.tools @> ${p(tools)}::text[]`);
  if (f.minScore !== undefined) where.push(`s.score >= ${p(f.minScore)}::float8`);
  if (f.minUptime !== undefined) where.push(`s.uptime_percentage >= ${p(f.minUptime)}::float8`);
  if (f.verifiedOnly) where.push("s.verified");
  return { sql: where.length ? `where ${where.join(" and ")}` : "", params };
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
  matched: number;
}

/**
 * One single-table statement: the best `cap` matches by score (Postgres plans it per request and picks the GIN
 * index for selective filters or a walk down the score index, stopping after `cap` matches, for common ones),
 * counted, and the first `limit` of them with their display columns and completions.
 */
export async function searchPage(
  pool: pg.Pool,
  indexerSchema: string,
  f: SearchFilters,
  fuzzy: boolean,
  cap: number,
): Promise<{ results: SearchResult[]; matched: number }> {
  const { sql, params } = buildWhere(f, fuzzy);
  params.push(cap, f.limit);
  const { rows } = await pool.query<Row>(
    `select m.*, coalesce(st.completions, 0)::int completions
       from (select s.*, row_number() over (order by s.score desc, s.agent_id) n, count(*) over ()::int matched
               from (select s.agent_id, s.score, s.name, s.wallet_address, s.display_capabilities,
                            s.display_programming_langs, s.display_domains, s.display_tools, s.uptime_percentage,
                            s.avg_response_time_ms, s.attestation_count, s.attestation_score, s.verification_badges
                       from api.agent_search s ${sql}
                      order by s.score desc, s.agent_id limit $${params.length - 1}) s) m
       left join ${indexerSchema}.agent_run_stats st on st.agent_id = m.agent_id
      where m.n <= $${params.length}
      order by m.n`,
    params,
  );
  return {
    matched: rows[0]?.matched ?? 0,
    results: rows.map((r) => ({
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
    })),
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

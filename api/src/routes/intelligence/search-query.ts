// SQL for the paid agent search, over api.agent_search (031_agent_search.sql). Pure string building + one query.
import type pg from "pg";
import { getAddress } from "viem";

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

interface Row {
  agent_id: string;
  name: string;
  capabilities: string[];
  programming_langs: string[];
  domains: string[];
  tools: string[];
  score: number;
  wallet: string | null;
  completions: number;
  uptime_percentage: number | null;
  avg_response_time_ms: number | null;
  attestation_count: number | null;
  attestation_score: number | null;
  verification_badges: string[] | null;
}

/**
 * The ids of the best `cap` matches by score. Planned per request (custom plan): Postgres picks the GIN index for
 * selective filters and a walk down the score index (stopping after `cap` matches) for common ones.
 */
export async function searchIds(pool: pg.Pool, f: SearchFilters, fuzzy: boolean, cap: number): Promise<string[]> {
  const { sql, params } = buildWhere(f, fuzzy);
  params.push(cap);
  const { rows } = await pool.query<{ agent_id: string }>(
    `select s.agent_id::text from api.agent_search s ${sql} order by s.score desc, s.agent_id limit $${params.length}`,
    params,
  );
  return rows.map((r) => r.agent_id);
}

/**
 * Display columns of a page of agents, in the given order. Fixed shape: a named prepared statement, planned once per
 * connection. Tags come back as the agent wrote them (api.agent_profile; api.agent_search holds them lower-cased).
 */
export async function searchDetails(pool: pg.Pool, indexerSchema: string, ids: string[]): Promise<SearchResult[]> {
  if (ids.length === 0) return [];
  const { rows } = await pool.query<Row>({
    name: `agenthub_search_details_${indexerSchema}`,
    text: `select u.agent_id::text, s.score, p.name, p.capabilities, p.programming_langs, p.domains, p.tools,
                  coalesce(w.wallet_address, a.wallet) wallet, coalesce(st.completions, 0)::int completions,
                  r.uptime_percentage, r.avg_response_time_ms, r.attestation_count, r.attestation_score,
                  r.verification_badges
             from unnest($1::bigint[]) with ordinality u(agent_id, ord)
             join api.agent_search s on s.agent_id = u.agent_id
             join api.agent_profile p on p.agent_id = u.agent_id
             left join api.reputation r on r.agent_id = u.agent_id
             left join api.agent_wallet w on w.agent_id = u.agent_id
             left join ${indexerSchema}.agent a on a.id = u.agent_id
             left join ${indexerSchema}.agent_run_stats st on st.agent_id = u.agent_id
            order by u.ord`,
    values: [ids],
  });
  return rows.map((r) => ({
    id: Number(r.agent_id),
    walletAddress: r.wallet ? getAddress(r.wallet) : null,
    name: r.name,
    capabilities: r.capabilities,
    programmingLangs: r.programming_langs,
    domains: r.domains,
    tools: r.tools,
    reputation: {
      score: r.score,
      completions: r.completions,
      uptimePercentage: r.uptime_percentage ?? 0,
      avgResponseTimeMs: r.avg_response_time_ms ?? 0,
      attestationCount: r.attestation_count ?? 0,
      attestationScore: r.attestation_score ?? 0,
      verificationBadges: r.verification_badges ?? [],
    },
  }));
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

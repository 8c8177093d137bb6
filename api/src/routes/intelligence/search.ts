// POST /api/intelligence/search (paid: x-payment or x402): agents by text relevance and filters, best score first.
import { createRoute, z } from "@hono/zod-openapi";
import pg from "pg";
import type { Deps } from "../../context.ts";
import { router } from "../../lib/openapi.ts";
import { json, jsonBody } from "../../lib/schemas.ts";
import { paidRouteDocs, requirePayment } from "../../payments/index.ts";
import { SearchCache } from "./search-cache.ts";
import { estimateMatches, type SearchFilters, searchPage } from "./search-query.ts";

export const SEARCH_PATH = "/api/intelligence/search";
export const MAX_LIMIT = 100;

const tag = z.string().trim().min(1).max(64);
const searchBody = z
  .object({
    query: z
      .string()
      .trim()
      .max(200)
      .optional()
      .openapi({
        description:
          "Natural language. Full-text match (english stemming, all words) over name, description, capabilities, " +
          "tools, programming languages and domains; when nothing matches, a fuzzy (trigram) match on the name.",
        example: "python testing",
      }),
    capabilities: z.array(tag).max(10).optional().openapi({ description: "The agent has all of them" }),
    programmingLangs: z.array(tag).max(20).optional().openapi({ description: "The agent has at least one" }),
    domains: z.array(tag).max(20).optional().openapi({ description: "The agent has at least one" }),
    tools: z.array(tag).max(20).optional().openapi({ description: "The agent has all of them" }),
    minScore: z.number().min(0).max(100).optional().openapi({ description: "Reputation score at least this" }),
    minUptime: z.number().min(0).max(100).optional().openapi({ description: "30-day uptime percentage at least" }),
    verifiedOnly: z.boolean().optional().openapi({ description: "At least one VERIFIED verification" }),
    limit: z.number().int().min(1).max(MAX_LIMIT).default(20),
  })
  .openapi("SearchRequest");

const searchResult = z
  .object({
    id: z.number(),
    walletAddress: z.string().nullable(),
    name: z.string(),
    capabilities: z.array(z.string()),
    programmingLangs: z.array(z.string()),
    domains: z.array(z.string()),
    tools: z.array(z.string()),
    reputation: z.object({
      score: z.number(),
      completions: z.number(),
      uptimePercentage: z.number(),
      avgResponseTimeMs: z.number(),
      attestationCount: z.number(),
      attestationScore: z.number(),
      verificationBadges: z.array(z.string()),
    }),
  })
  .openapi("SearchResult");

export const searchResponse = z
  .object({
    results: z.array(searchResult),
    total: z
      .number()
      .openapi({ description: "Matching agents: exact when totalExact, else an estimate from the index statistics" }),
    totalExact: z.boolean(),
  })
  .openapi("SearchResponse");

const docs = paidRouteDocs(SEARCH_PATH);

const searchRoute = createRoute({
  method: "post",
  path: SEARCH_PATH,
  tags: ["intelligence"],
  summary: "Paid agent search ($0.001: x-payment, or x402 USDC)",
  description:
    "Filters all apply together; results are ordered by reputation score, descending (then id). `total` is exact " +
    "(`totalExact: true`) when the filters are selective enough for every match to be counted, otherwise an " +
    "estimate from the index statistics, at least limit + 1 (`totalExact: false`). Answers may come from a per-process cache that is " +
    "emptied whenever any agent's searchable data changes.",
  middleware: [requirePayment(SEARCH_PATH)] as const,
  request: { headers: docs.headers, body: jsonBody(searchBody) },
  responses: { 200: json(searchResponse, "Matching agents"), ...docs.responses },
});

const ESTIMATE_TTL_MS = 60_000;
const ESTIMATE_ENTRIES = 5_000;

/** Planner estimates change slowly: one EXPLAIN per distinct filter set per minute and process. */
async function cachedEstimate(deps: Deps, f: SearchFilters, fuzzy: boolean): Promise<number> {
  const cache = searchState(deps).estimates;
  const { limit: _limit, ...rest } = f;
  const key = JSON.stringify([rest, fuzzy]);
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < ESTIMATE_TTL_MS) return hit.value;
  const value = await estimateMatches(deps.pool, f, fuzzy);
  if (cache.size >= ESTIMATE_ENTRIES) cache.delete(cache.keys().next().value as string);
  cache.set(key, { at: Date.now(), value });
  return value;
}

/** Single-word queries may be names with typos: the trigram fallback is tried when full text finds nothing. */
const fuzzyCandidate = (q: string | undefined) => !!q && q.length >= 3 && q.length <= 100 && !/\s/.test(q.trim());

/** The response body as JSON text: Postgres builds the results array, the API only frames it. */
type SearchAnswer = string;
/**
 * Search state per API process: the answer cache, and a small pool whose sessions use generic plans for the
 * search's named statements. Left on "auto", Postgres kept re-planning them (custom plans looked cheaper on paper),
 * costing ~1 ms of planning per search; the generic plans of both passes were measured as fast as the custom ones.
 */
interface SearchState {
  cache: SearchCache<SearchAnswer>;
  pool: pg.Pool;
  /** Planner estimates per filter set (fallback when the index statistics are missing). */
  estimates: Map<string, { at: number; value: number }>;
}
const states = new WeakMap<Deps, SearchState>();

function searchState(deps: Deps): SearchState {
  let state = states.get(deps);
  if (!state) {
    const pool = new pg.Pool({
      connectionString: deps.env.DATABASE_URL,
      max: deps.env.SEARCH_POOL_SIZE,
      options: "-c plan_cache_mode=force_generic_plan",
    });
    pool.on("error", (err) => deps.logger.warn({ err: err.message }, "idle search connection error"));
    state = {
      pool,
      estimates: new Map(),
      cache: new SearchCache({
        databaseUrl: deps.env.DATABASE_URL,
        ttlMs: deps.env.SEARCH_CACHE_TTL_MS,
        maxEntries: deps.env.SEARCH_CACHE_ENTRIES,
        logger: deps.logger,
      }),
    };
    states.set(deps, state);
  }
  return state;
}

/** Cache lookups of this process so far (benchmarks report the hit ratio). */
export function searchCacheStats(deps: Deps): { hits: number; misses: number } {
  const cache = states.get(deps)?.cache;
  return { hits: cache?.hits ?? 0, misses: cache?.misses ?? 0 };
}

/** Stops the cache's change feed and the search pool (server shutdown). */
export async function closeSearch(deps: Deps): Promise<void> {
  const state = states.get(deps);
  states.delete(deps);
  await state?.cache.close();
  await state?.pool.end();
}

export async function searchAgents(deps: Deps, f: SearchFilters): Promise<SearchAnswer> {
  const { cache, pool } = searchState(deps);
  const key = JSON.stringify(f);
  const cached = cache.get(key);
  if (cached) return cached;
  const token = cache.token();
  const answer = await runSearch(deps, pool, f);
  cache.set(key, answer, token);
  return answer;
}

async function runSearch(deps: Deps, pool: pg.Pool, f: SearchFilters): Promise<SearchAnswer> {
  let fuzzy = false;
  let page = await searchPage(pool, deps.env.INDEXER_SCHEMA, f, false);
  if (page.matched === 0 && fuzzyCandidate(f.query)) {
    fuzzy = true;
    page = await searchPage(pool, deps.env.INDEXER_SCHEMA, f, true);
  }
  const total = page.exact
    ? page.matched
    : Math.max(page.estimate ?? (await cachedEstimate(deps, f, fuzzy)), f.limit + 1);
  return `{"results":${page.resultsJson},"total":${total},"totalExact":${page.exact}}`;
}

export const searchRoutes = router().openapi(searchRoute, async (c) => {
  const body = await searchAgents(c.get("deps"), c.req.valid("json"));
  // Already JSON in the SearchResponse shape (the e2e tests check it against the schema).
  return c.body(body, 200, { "content-type": "application/json" }) as unknown as ReturnType<
    typeof c.json<z.infer<typeof searchResponse>, 200>
  >;
});

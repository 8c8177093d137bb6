// The paid agent search: an answer cache per API process (emptied on any change to the search index, via LISTEN),
// a small pool whose sessions use generic plans for the search's named statements, and the planner estimates of
// `total` when it is not exact. Built once in server.ts and held in Deps (closed on shutdown).
import pg from "pg";
import type { Logger } from "pino";
import type { ChainNames } from "../../db/index.ts";
import { STATEMENT_TIMEOUT_MS } from "../../db/pool.ts";
import type { ApiEnv } from "../../env.ts";
import { ChangeFeedCache } from "../../stores/change-feed-cache.ts";
import { estimateMatches, type SearchFilters, searchPage } from "../../stores/search/query.ts";

/** The response body as JSON text: Postgres builds the results array, the API only frames it. */
export type SearchAnswer = string;

const ESTIMATE_TTL_MS = 60_000;
const ESTIMATE_ENTRIES = 5_000;

/** Single-word queries may be names with typos: the trigram fallback is tried when full text finds nothing. */
const fuzzyCandidate = (q: string | undefined) => !!q && q.length >= 3 && q.length <= 100 && !/\s/.test(q.trim());

interface Resources {
  cache: ChangeFeedCache<SearchAnswer>;
  /**
   * Left on "auto", Postgres kept re-planning the named statements (custom plans looked cheaper on paper), costing
   * ~1 ms of planning per search; the generic plans of both passes were measured as fast as the custom ones.
   */
  searchPool: pg.Pool;
}

export class AgentSearch {
  /** Opened on the first search (a process that never searches holds no search connection). */
  private resources: Resources | undefined;
  /** Planner estimates per filter set (fallback when the index statistics are missing). */
  private readonly estimates = new Map<string, { at: number; value: number }>();

  constructor(
    private readonly env: Pick<
      ApiEnv,
      | "DATABASE_URL"
      | "DATABASE_CONNECT_TIMEOUT_MS"
      | "SEARCH_POOL_SIZE"
      | "SEARCH_CACHE_TTL_MS"
      | "SEARCH_CACHE_ENTRIES"
    >,
    /** The request pool (estimates run there). */
    private readonly pool: pg.Pool,
    private readonly views: ChainNames,
    private readonly logger: Logger,
  ) {}

  private get cache(): ChangeFeedCache<SearchAnswer> {
    return this.open().cache;
  }

  private get searchPool(): pg.Pool {
    return this.open().searchPool;
  }

  private open(): Resources {
    if (!this.resources) {
      const searchPool = new pg.Pool({
        connectionString: this.env.DATABASE_URL,
        max: this.env.SEARCH_POOL_SIZE,
        connectionTimeoutMillis: this.env.DATABASE_CONNECT_TIMEOUT_MS,
        statement_timeout: STATEMENT_TIMEOUT_MS,
        options: "-c plan_cache_mode=force_generic_plan",
      });
      searchPool.on("error", (err) => this.logger.warn({ err: err.message }, "idle search connection error"));
      const cache = new ChangeFeedCache<SearchAnswer>({
        label: "search cache",
        databaseUrl: this.env.DATABASE_URL,
        // Every statement that changes api.agent_search (033_agent_search_speed.sql).
        channels: [{ name: "agenthub_search" }],
        ttlMs: this.env.SEARCH_CACHE_TTL_MS,
        maxEntries: this.env.SEARCH_CACHE_ENTRIES,
        logger: this.logger,
      });
      this.resources = { cache, searchPool };
    }
    return this.resources;
  }

  async search(f: SearchFilters): Promise<SearchAnswer> {
    const key = JSON.stringify(f);
    const cached = this.cache.get(key);
    if (cached) return cached;
    const token = this.cache.token();
    const answer = await this.run(f);
    this.cache.set(key, answer, token);
    return answer;
  }

  /** Cache lookups of this process so far (benchmarks report the hit ratio). */
  stats(): { hits: number; misses: number } {
    return { hits: this.resources?.cache.hits ?? 0, misses: this.resources?.cache.misses ?? 0 };
  }

  /** Stops the cache's change feed and the search pool (server shutdown). */
  async close(): Promise<void> {
    const opened = this.resources;
    this.resources = undefined;
    await opened?.cache.close();
    await opened?.searchPool.end();
  }

  private async run(f: SearchFilters): Promise<SearchAnswer> {
    let fuzzy = false;
    let page = await searchPage(this.searchPool, this.views, f, false);
    if (page.matched === 0 && fuzzyCandidate(f.query)) {
      fuzzy = true;
      page = await searchPage(this.searchPool, this.views, f, true);
    }
    const total = page.exact
      ? page.matched
      : Math.max(page.estimate ?? (await this.cachedEstimate(f, fuzzy)), f.limit + 1);
    return `{"results":${page.resultsJson},"total":${total},"totalExact":${page.exact}}`;
  }

  /** Planner estimates change slowly: one EXPLAIN per distinct filter set per minute and process. */
  private async cachedEstimate(f: SearchFilters, fuzzy: boolean): Promise<number> {
    const { limit: _limit, ...rest } = f;
    const key = JSON.stringify([rest, fuzzy]);
    const hit = this.estimates.get(key);
    if (hit && Date.now() - hit.at < ESTIMATE_TTL_MS) return hit.value;
    const value = await estimateMatches(this.pool, f, fuzzy);
    if (this.estimates.size >= ESTIMATE_ENTRIES) this.estimates.delete(this.estimates.keys().next().value as string);
    this.estimates.set(key, { at: Date.now(), value });
    return value;
  }
}

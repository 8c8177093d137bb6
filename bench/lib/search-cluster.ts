// What the search profilers (bench/search-profile.ts, bench/search-ab.ts) share: the seeded cluster of
// BENCH_DATA_DIR (seeded by bench/search.ts), one session with the search pool's settings, and the scenario whose
// random bodies they sample.
import { join } from "node:path";
import pg from "pg";
import { chainViews } from "../../api/src/db/index.ts";
import {
  passRow,
  runSearchPasses,
  type SearchFilters,
  type SearchPass,
  searchStatement,
} from "../../api/src/stores/search/query.ts";
import { startEmbeddedPostgres } from "../../scripts/lib/postgres.ts";
import { freePort } from "../../scripts/lib/stack.ts";
import { searchScenarios } from "./search-scenarios.ts";

export async function openSearchCluster(scenarioName: string) {
  const scenario = searchScenarios.find((s) => s.name.includes(scenarioName));
  if (!scenario) throw new Error(`no search scenario named like ${scenarioName}`);
  const dir = process.env.BENCH_DATA_DIR;
  if (!dir) throw new Error("BENCH_DATA_DIR: a cluster seeded by bench/search.ts");
  const db = await startEmbeddedPostgres({ dir: join(dir, "pg"), port: await freePort() });
  // The search pool's session settings (api/src/use-cases/search/agent-search.ts).
  const client = new pg.Client({ connectionString: db.url, options: "-c plan_cache_mode=force_generic_plan" });
  await client.connect();
  const views = chainViews("chain").names;
  return {
    client,
    scenario,
    /**
     * One search with the API's pass choice (runSearchPasses); `execute` runs each pass's statement (timing,
     * explaining or rewriting it) and returns its row. The page and the passes taken, in order.
     */
    async searchAsTheApi(f: SearchFilters, execute: (statement: pg.QueryConfig, pass: SearchPass) => Promise<unknown>) {
      const passes: SearchPass[] = [];
      const page = await runSearchPasses(f, false, async (pass) => {
        passes.push(pass);
        return passRow((await execute(searchStatement(pass, views, f, false), pass)) as Parameters<typeof passRow>[0]);
      });
      return { page, passes };
    },
    /** A random request body of the scenario, as the API validates it (limit 20). */
    body: () => ({ limit: 20, ...(scenario.body!() as object) }) as SearchFilters,
    async close() {
      await client.end();
      await db.stop();
    },
  };
}

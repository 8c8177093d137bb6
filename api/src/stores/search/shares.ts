// The search-stats job: fresh statistics on api.agent_search and the lexeme/tag shares the search's first pass
// consults (api.search_walk_share, 033_agent_search_speed.sql) to skip a score walk that cannot pay off.
import type { Deps } from "../../context.ts";

export async function refreshSearchShares(deps: Pick<Deps, "pool">): Promise<{ shares: number }> {
  await deps.pool.query("analyze api.agent_search");
  const { rows } = await deps.pool.query<{ n: number }>("select api.refresh_search_shares() n");
  return { shares: rows[0]?.n ?? 0 };
}

// Reputation reads: an agent's score and breakdown, its history, the leaderboard, platform stats and the market.
import type { ReadCore } from "../read-core.ts";
import type { Query } from "../types.ts";

export class Reputation {
  constructor(private readonly core: ReadCore) {}

  get(agentId: number) {
    return this.core.call(this.core.api.GET("/api/reputation/{id}", { params: { path: { id: agentId } } }));
  }

  history(agentId: number, query: Query<"/api/reputation/{id}/history", "get"> = {}) {
    return this.core.call(
      this.core.api.GET("/api/reputation/{id}/history", { params: { path: { id: agentId }, query } }),
    );
  }

  /** Agents by `sortBy`: score (default), completions or uptime. */
  leaderboard(query: Query<"/api/reputation", "get"> = {}) {
    return this.core.call(this.core.api.GET("/api/reputation", { params: { query } }));
  }

  stats() {
    return this.core.call(this.core.api.GET("/api/stats"));
  }

  market() {
    return this.core.call(this.core.api.GET("/api/intelligence/market"));
  }
}

// The read-only AgentHub client: everything anyone may read without a wallet (agents, runs and their events,
// reputation, leaderboard, stats, attestations, live activity, the deployment). No signing or chain code comes with
// it; the full client (AgentHub, client.ts) extends it with the signed and paid flows.
//   const hub = new AgentHubReader({ apiUrl: "http://localhost:3000" });
//   const { agents } = await hub.agents.list({ page: 1, limit: 20 });
import { AgentReads, AttestationReads, RunReads } from "./features/reads.ts";
import { Reputation } from "./features/reputation.ts";
import { type AgentHubReaderOptions, ReadCore } from "./read-core.ts";
import type { Query } from "./types.ts";

export class AgentHubReader {
  /** The typed low-level client (openapi-fetch over the server's own OpenAPI document) for anything not wrapped. */
  readonly api: ReadCore["api"];
  readonly agents: AgentReads;
  readonly runs: RunReads;
  readonly reputation: Reputation;
  readonly attestations: AttestationReads;
  protected readonly core: ReadCore;

  constructor(options: AgentHubReaderOptions) {
    this.core = this.createCore(options);
    this.api = this.core.api;
    this.agents = new AgentReads(this.core);
    this.runs = new RunReads(this.core);
    this.reputation = new Reputation(this.core);
    this.attestations = new AttestationReads(this.core);
  }

  /** The full client builds its own core (chain reads, signing) here; a hook, called once by the constructor. */
  protected createCore(options: AgentHubReaderOptions): ReadCore {
    return new ReadCore(options);
  }

  /** The deployment (GET /api/config, fetched once): chain id, every address, parameters, payment recipient, prices. */
  config() {
    return this.core.config();
  }

  /** Live activity: indexed run events of every run, newest first; poll with `after` = the last answer's cursor. */
  activity(query: Query<"/api/activity", "get"> = {}) {
    return this.core.call(this.core.api.GET("/api/activity", { params: { query } }));
  }

  /** Unix seconds on the chain's clock (deadlines are checked against it). */
  chainTime() {
    return this.core.chainTime();
  }

  health() {
    return this.core.call(this.core.api.GET("/health"));
  }
}

// The AgentHub client: one object per deployment, one module per feature.
//   const hub = new AgentHub({ apiUrl: "http://localhost:3000", rpcUrl: "http://127.0.0.1:8545" });
//   const { agentId, claimCode } = await hub.agents.register({ name: "Ada", capabilities: ["coding"] });
//   await hub.agents.claim(agentId, { claimCode, signer: privateKeyToAccount(key) });
import type { Address, PublicClient } from "viem";
import { type AgentHubOptions, Core } from "./core.ts";
import { Agents } from "./features/agents.ts";
import { Attestations } from "./features/attestations.ts";
import { Credits } from "./features/credits.ts";
import { Governance } from "./features/governance.ts";
import { Insurance } from "./features/insurance.ts";
import { Organizations } from "./features/organizations.ts";
import type { PayWith } from "./features/paid.ts";
import { Reports } from "./features/reports.ts";
import { Reputation } from "./features/reputation.ts";
import { Runs } from "./features/runs.ts";
import { type SearchQuery, search } from "./features/search.ts";
import { usdcBalance } from "./features/shared.ts";
import { Subscriptions } from "./features/subscriptions.ts";
import { Verifications } from "./features/verifications.ts";
import type { Query } from "./types.ts";

export class AgentHub {
  /** The typed low-level client (openapi-fetch over the server's own OpenAPI document) for anything not wrapped. */
  readonly api: Core["api"];
  readonly agents: Agents;
  readonly runs: Runs;
  /** Credits of payments that failed (a blacklisted recipient), withdrawn by the credited account. */
  readonly credits: Credits;
  readonly reputation: Reputation;
  readonly verifications: Verifications;
  readonly attestations: Attestations;
  readonly organizations: Organizations;
  readonly subscriptions: Subscriptions;
  readonly insurance: Insurance;
  readonly governance: Governance;
  readonly reports: Reports;
  private readonly core: Core;

  constructor(options: AgentHubOptions) {
    this.core = new Core(options);
    this.api = this.core.api;
    this.agents = new Agents(this.core);
    this.runs = new Runs(this.core);
    this.credits = new Credits(this.core);
    this.reputation = new Reputation(this.core);
    this.verifications = new Verifications(this.core);
    this.attestations = new Attestations(this.core);
    this.organizations = new Organizations(this.core);
    this.subscriptions = new Subscriptions(this.core);
    this.insurance = new Insurance(this.core);
    this.governance = new Governance(this.core);
    this.reports = new Reports(this.core);
  }

  /** The deployment (GET /api/config, fetched once): chain id, every address, parameters, payment recipient, prices. */
  config() {
    return this.core.config();
  }

  /** Paid agent search (x402 by default, or the spec's x-payment). */
  search(query: SearchQuery, pay: PayWith) {
    return search(this.core, query, pay);
  }

  /** Live activity: indexed run events of every run, newest first; poll with `after` = the last answer's cursor. */
  activity(query: Query<"/api/activity", "get"> = {}) {
    return this.core.call(this.core.api.GET("/api/activity", { params: { query } }));
  }

  /** A viem public client on the configured RPC (rpcUrl or publicClient), for the chain GET /api/config names. */
  chain(): Promise<PublicClient> {
    return this.core.chain();
  }

  /** Unix seconds on the chain's clock (deadlines are checked against it). */
  chainTime() {
    return this.core.chainTime();
  }

  /** USDC balance in base units (reads the chain; needs rpcUrl). */
  usdcBalance(address: Address) {
    return usdcBalance(this.core, address);
  }

  health() {
    return this.core.call(this.core.api.GET("/health"));
  }

  /** Local development stacks only: test USDC and ETH from the faucet. */
  faucet(address: Address, amounts: { usdc?: bigint | string; eth?: bigint | string }) {
    return this.core.call(
      this.core.api.POST("/api/dev/faucet", {
        body: {
          address,
          ...(amounts.usdc === undefined ? {} : { usdc: String(amounts.usdc) }),
          ...(amounts.eth === undefined ? {} : { eth: String(amounts.eth) }),
        },
      }),
    );
  }
}

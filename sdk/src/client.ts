// The AgentHub client: one object per deployment, one module per feature; the read-only client (AgentHubReader,
// @agenthub/sdk/read) plus every signed, paid and chain flow.
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
import { Runs } from "./features/runs.ts";
import { type SearchQuery, search } from "./features/search.ts";
import { usdcBalance } from "./features/shared.ts";
import { Subscriptions } from "./features/subscriptions.ts";
import { Verifications } from "./features/verifications.ts";
import { AgentHubReader } from "./read-client.ts";

export class AgentHub extends AgentHubReader {
  declare readonly agents: Agents;
  declare readonly runs: Runs;
  declare readonly attestations: Attestations;
  /** Credits of payments that failed (a blacklisted recipient), withdrawn by the credited account. */
  readonly credits: Credits;
  readonly verifications: Verifications;
  readonly organizations: Organizations;
  readonly subscriptions: Subscriptions;
  readonly insurance: Insurance;
  readonly governance: Governance;
  readonly reports: Reports;
  declare protected readonly core: Core;

  constructor(options: AgentHubOptions) {
    super(options);
    this.agents = new Agents(this.core);
    this.runs = new Runs(this.core);
    this.attestations = new Attestations(this.core);
    this.credits = new Credits(this.core);
    this.verifications = new Verifications(this.core);
    this.organizations = new Organizations(this.core);
    this.subscriptions = new Subscriptions(this.core);
    this.insurance = new Insurance(this.core);
    this.governance = new Governance(this.core);
    this.reports = new Reports(this.core);
  }

  protected override createCore(options: AgentHubOptions): Core {
    return new Core(options);
  }

  /** Paid agent search (x402 by default, or the spec's x-payment). */
  search(query: SearchQuery, pay: PayWith) {
    return search(this.core, query, pay);
  }

  /** A viem public client on the configured RPC (rpcUrl or publicClient), for the chain GET /api/config names. */
  chain(): Promise<PublicClient> {
    return this.core.chain();
  }

  /** USDC balance in base units (reads the chain; needs rpcUrl). */
  usdcBalance(address: Address) {
    return usdcBalance(this.core, address);
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

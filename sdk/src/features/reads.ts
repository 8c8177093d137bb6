// What anyone may read about agents, runs and attestations: no signature, no chain, no viem at run time. The full
// client's feature modules (agents.ts, runs.ts, attestations.ts) extend these with the signed and paid flows; the
// read-only client (@agenthub/sdk/read) uses them as they are.
import type { ReadCore } from "../read-core.ts";
import type { RunState } from "../types.ts";

export class AgentReads {
  constructor(protected readonly core: ReadCore) {}

  /** What a claim code points at (agent id, name, whether it is still claimable). */
  claimInfo(claimCode: string) {
    return this.core.call(this.core.api.GET("/api/agents/claim-info/{claimCode}", { params: { path: { claimCode } } }));
  }

  get(agentId: number) {
    return this.core.call(this.core.api.GET("/api/agents/{id}", { params: { path: { id: agentId } } }));
  }

  list(query: { page?: number; limit?: number } = {}) {
    return this.core.call(this.core.api.GET("/api/agents", { params: { query } }));
  }

  /** The agent's ERC-8004-style agent card. */
  card(agentId: number) {
    return this.core.call(this.core.api.GET("/api/agents/{id}/agent-card.json", { params: { path: { id: agentId } } }));
  }

  /** Stake status: staked amount, whether the agent may claim runs, slash history. */
  stakeInfo(agentId: number) {
    return this.core.call(this.core.api.GET("/api/agents/{id}/stake", { params: { path: { id: agentId } } }));
  }
}

export class RunReads {
  constructor(protected readonly core: ReadCore) {}

  /** Runs, newest first; `agentId` keeps the runs that agent claimed, `poster` the runs that address posted. */
  list(
    query: {
      page?: number;
      limit?: number;
      state?: RunState;
      minReward?: bigint | string;
      agentId?: number;
      poster?: `0x${string}`;
    } = {},
  ) {
    const { minReward, ...rest } = query;
    return this.core.call(
      this.core.api.GET("/api/runs", {
        params: { query: { ...rest, ...(minReward === undefined ? {} : { minReward: String(minReward) }) } },
      }),
    );
  }

  get(runId: number) {
    return this.core.call(this.core.api.GET("/api/runs/{id}", { params: { path: { id: runId } } }));
  }

  events(runId: number) {
    return this.core.call(this.core.api.GET("/api/runs/{id}/events", { params: { path: { id: runId } } }));
  }

  /** Whether `agentId` may claim the run now, with the refusal codes if not. */
  eligibility(runId: number, agentId: number) {
    return this.core.call(
      this.core.api.GET("/api/runs/{id}/claim-eligibility", { params: { path: { id: runId }, query: { agentId } } }),
    );
  }
}

export class AttestationReads {
  constructor(protected readonly core: ReadCore) {}

  get(id: number) {
    return this.core.call(this.core.api.GET("/api/attestations/{id}", { params: { path: { id } } }));
  }

  forAgent(agentId: number) {
    return this.core.call(this.core.api.GET("/api/attestations/agent/{agentId}", { params: { path: { agentId } } }));
  }

  stats(agentId: number) {
    return this.core.call(
      this.core.api.GET("/api/attestations/agent/{agentId}/stats", { params: { path: { agentId } } }),
    );
  }
}

// Rebuilds the chain facts of reputation (registration time, counted claims, completions, failures per agent) from
// AgentIdentity and RunEscrow events alone, applying the rule the indexer applies (@agenthub/common/reputation-rule).
// A pure fold over events in chain order: what an auditor with an RPC endpoint can do without AgentHub's database.
import { claimCounts, reputationPairId } from "@agenthub/common/reputation-rule";

export type ReplayEvent =
  | { kind: "AgentRegistered"; agentId: bigint; wallet: string }
  | { kind: "AgentClaimed"; agentId: bigint; newOwner: string }
  | { kind: "Transfer"; tokenId: bigint; from: string; to: string }
  | { kind: "RunCreated"; runId: bigint; poster: string; reward: bigint }
  | { kind: "RunClaimed"; runId: bigint; agentId: bigint }
  | { kind: "RunCompleted"; runId: bigint; agentId: bigint }
  | { kind: "RunRejected"; runId: bigint; agentId: bigint }
  | { kind: "DisputeResolved"; runId: bigint; agentId: bigint; forAgent: boolean }
  | { kind: "RunTimedOut"; runId: bigint; agentId: bigint };

export type TimedEvent = ReplayEvent & { timestamp: bigint };

/** The events the replay reads (every other AgentIdentity or RunEscrow event leaves the facts alone). */
export const REPLAYED_EVENTS: ReadonlySet<string> = new Set<ReplayEvent["kind"]>([
  "AgentRegistered",
  "AgentClaimed",
  "Transfer",
  "RunCreated",
  "RunClaimed",
  "RunCompleted",
  "RunRejected",
  "DisputeResolved",
  "RunTimedOut",
]);

export interface ChainFacts {
  registeredAt: bigint;
  totalClaimed: number;
  completions: number;
  failures: number;
}

/** An agent's facts right after an event that changed them, with that event's chain time. */
export interface FactsSnapshot extends ChainFacts {
  timestamp: bigint;
}

const ZERO = "0x0000000000000000000000000000000000000000";

/**
 * Folds events (already in chain order: block, then log index) into each agent's chain facts, kept after every event
 * that changed them (oldest first), so one pass answers "the facts as of any time" for every agent.
 */
export function replayChainFacts(events: TimedEvent[]): Map<bigint, FactsSnapshot[]> {
  const agents = new Map<bigint, { owner: string; wallet: string } & ChainFacts>();
  const history = new Map<bigint, FactsSnapshot[]>();
  const snapshot = (agentId: bigint, timestamp: bigint) => {
    const { registeredAt, totalClaimed, completions, failures } = agents.get(agentId)!;
    history.get(agentId)!.push({ registeredAt, totalClaimed, completions, failures, timestamp });
  };
  const runs = new Map<bigint, { poster: string; reward: bigint; counts: boolean }>();
  const pairs = new Map<string, bigint>();
  const bump = (agentId: bigint, field: "totalClaimed" | "completions" | "failures", timestamp: bigint) => {
    const a = agents.get(agentId);
    if (!a) return;
    a[field] += 1;
    snapshot(agentId, timestamp);
  };
  for (const e of events) {
    switch (e.kind) {
      case "AgentRegistered":
        if (!agents.has(e.agentId)) {
          agents.set(e.agentId, {
            owner: e.wallet,
            wallet: e.wallet,
            registeredAt: e.timestamp,
            totalClaimed: 0,
            completions: 0,
            failures: 0,
          });
          history.set(e.agentId, []);
          snapshot(e.agentId, e.timestamp);
        }
        break;
      case "AgentClaimed": {
        const a = agents.get(e.agentId);
        if (a) a.owner = e.newOwner;
        break;
      }
      case "Transfer": {
        const a = agents.get(e.tokenId);
        if (a && e.from !== ZERO) a.owner = e.to;
        break;
      }
      case "RunCreated":
        runs.set(e.runId, { poster: e.poster, reward: e.reward, counts: false });
        break;
      case "RunClaimed": {
        const run = runs.get(e.runId);
        if (!run) break;
        const pairId = reputationPairId(run.poster, e.agentId);
        const claimer = agents.get(e.agentId);
        run.counts = claimCounts({
          reward: run.reward,
          poster: run.poster,
          claimer: claimer && { owner: claimer.owner, wallet: claimer.wallet },
          pairLastCountedAt: pairs.get(pairId),
          timestamp: e.timestamp,
        });
        if (run.counts) {
          pairs.set(pairId, e.timestamp);
          bump(e.agentId, "totalClaimed", e.timestamp);
        }
        break;
      }
      case "RunCompleted":
        if (runs.get(e.runId)?.counts) bump(e.agentId, "completions", e.timestamp);
        break;
      case "RunRejected":
      case "RunTimedOut":
        if (runs.get(e.runId)?.counts) bump(e.agentId, "failures", e.timestamp);
        break;
      case "DisputeResolved": {
        // For the agent: the RunCompleted of the same transaction counts it. Against: a failure, and the run is
        // open again (its next claim is judged afresh).
        if (e.forAgent) break;
        const run = runs.get(e.runId);
        if (run?.counts) bump(e.agentId, "failures", e.timestamp);
        if (run) run.counts = false;
        break;
      }
    }
  }
  return history;
}

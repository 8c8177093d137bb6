// The published inputs of a stored reputation score: everything computeReputation took, split into what anyone can
// rebuild from chain events (registration time, counted claims, completions, failures) and what only AgentHub
// observes (health checks in the uptime window, received attestations, verification badges, declared capabilities).
// Stored content-addressed (CIDv1, raw, sha2-256 over these exact bytes), so a score can be audited later against
// the very document it was computed from: scripts/recompute-reputation.ts does it.
import { REPUTATION_FORMULA_VERSION, type ReputationInputs } from "./reputation.ts";

/** The inputs anyone can rebuild from chain events. */
type ChainFacts = Pick<ReputationInputs, "registeredAt" | "totalClaimed" | "completions" | "failures">;

export const REPUTATION_INPUTS_TYPE = "agenthub-reputation-inputs/1";

export interface ReputationInputsDocument {
  type: typeof REPUTATION_INPUTS_TYPE;
  agentId: number;
  formulaVersion: string;
  score: number;
  /** Chain time of the computation (unix seconds): chain facts are those of blocks at or before it. */
  computedAt: string;
  chain: { [K in keyof ChainFacts]: K extends "registeredAt" ? string : number };
  /** What only AgentHub observes: every other input of the formula, as computeReputation took it. */
  offChain: Omit<ReputationInputs, "now" | keyof ChainFacts>;
}

export function reputationInputsDocument(
  agentId: number,
  score: number,
  i: ReputationInputs,
): ReputationInputsDocument {
  return {
    type: REPUTATION_INPUTS_TYPE,
    agentId,
    formulaVersion: REPUTATION_FORMULA_VERSION,
    score,
    computedAt: i.now.toString(),
    chain: {
      registeredAt: i.registeredAt.toString(),
      totalClaimed: i.totalClaimed,
      completions: i.completions,
      failures: i.failures,
    },
    offChain: {
      checks: i.checks,
      ups: i.ups,
      latencySumMs: i.latencySumMs,
      attestationCount: i.attestationCount,
      attestationWeightedSum: i.attestationWeightedSum,
      attestationWeightSum: i.attestationWeightSum,
      expertiseWeightedSum: i.expertiseWeightedSum,
      expertiseWeightSum: i.expertiseWeightSum,
      badges: [...i.badges].sort(),
      skillScores: i.skillScores,
      capabilities: i.capabilities,
      programmingLangs: i.programmingLangs,
    },
  };
}

/** The formula's inputs back from a published document (what an auditor feeds computeReputation). */
export function inputsOfDocument(d: ReputationInputsDocument): ReputationInputs {
  return {
    now: BigInt(d.computedAt),
    registeredAt: BigInt(d.chain.registeredAt),
    totalClaimed: d.chain.totalClaimed,
    completions: d.chain.completions,
    failures: d.chain.failures,
    ...d.offChain,
  };
}

// Counts and averages of the attestations an agent received, overall and per category, and how many it gave.
import type { Deps } from "../../context.ts";
import { ATTESTATION_CATEGORIES, type AttestationCategory } from "../../domain/reputation.ts";
import { attestationTotals, type CategoryStat } from "../../stores/attestations.ts";
import { requireAgentFacts } from "../guards.ts";

export interface CategoryStats {
  count: number;
  averageRating: number;
  weightedScore: number;
  totalWeight: number;
}

export interface AttestationStatsReturnType {
  agentId: number;
  count: number;
  /** Plain average of ratings, 0 with none. */
  averageRating: number;
  /** sum(rating x weight) / sum(weight), 0 with none. */
  attestationScore: number;
  totalWeight: number;
  givenCount: number;
  categories: Record<AttestationCategory, CategoryStats>;
}

const r4 = (v: number) => Math.round(v * 10_000) / 10_000;
const stat = (r: CategoryStat | undefined): CategoryStats => ({
  count: r?.n ?? 0,
  averageRating: r?.avg ? r4(r.avg) : 0,
  weightedScore: r?.w ? r4((r.wsum ?? 0) / r.w) : 0,
  totalWeight: r?.w ? r4(r.w) : 0,
});

export async function attestationStats(
  deps: Deps,
  { agentId }: { agentId: number },
): Promise<AttestationStatsReturnType> {
  await requireAgentFacts(deps, agentId);
  const { received, given } = await attestationTotals(deps, agentId);
  const total = stat(received.find((r) => r.category === null));
  return {
    agentId,
    count: total.count,
    averageRating: total.averageRating,
    attestationScore: total.weightedScore,
    totalWeight: total.totalWeight,
    givenCount: given,
    categories: Object.fromEntries(
      ATTESTATION_CATEGORIES.map((cat) => [cat, stat(received.find((r) => r.category === cat))]),
    ) as Record<AttestationCategory, CategoryStats>,
  };
}

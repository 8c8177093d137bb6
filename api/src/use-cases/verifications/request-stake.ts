// A stake verification requested: the minimum the agent keeps locked in the StakeVault, at least the smallest badge.
import type { Deps } from "../../context.ts";
import { stakeBadge } from "../../domain/reputation.ts";
import { apiError } from "../../errors.ts";
import { insertRequest } from "../../stores/verifications.ts";
import { requireAgentFacts } from "../guards.ts";
import { CHALLENGE_SECONDS } from "./badges.ts";
import { toView, type VerificationView } from "./verification-view.ts";

export interface RequestStakeParameters {
  agentId: number;
  /** USDC base units. */
  minStakeAmount: string;
}

export async function requestStake(deps: Deps, p: RequestStakeParameters): Promise<{ verification: VerificationView }> {
  await requireAgentFacts(deps, p.agentId);
  if (!stakeBadge(BigInt(p.minStakeAmount))) {
    throw apiError(
      "STAKE_BELOW_BADGE_MINIMUM",
      "minStakeAmount must be at least 100000000 (100 USDC), the smallest stake badge",
    );
  }
  const now = await deps.clock.now();
  const row = await insertRequest(deps.pool, {
    agentId: p.agentId,
    type: "stake",
    minStake: p.minStakeAmount,
    now,
    expiresAt: now + CHALLENGE_SECONDS,
  });
  return { verification: toView(row, now) };
}

// Checking a stake verification: the agent's active stake in the StakeVault (deposits minus pending withdrawals),
// read from the chain; the badge holds for 6 months and lapses when the stake falls below the minimum.
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import type { Deps } from "../../context.ts";
import { stakeBadge } from "../../domain/reputation.ts";
import { apiError } from "../../errors.ts";
import { addMonths } from "../../lib/time.ts";
import { markChecked, markVerified } from "../../stores/verifications.ts";
import { requireAgentFacts } from "../guards.ts";
import { badgeGranted, usableVerification } from "./badges.ts";
import { toView, type VerificationView } from "./verification-view.ts";

const VALIDITY_MONTHS = 6;

export async function checkStake(deps: Deps, { id }: { id: number }): Promise<{ verification: VerificationView }> {
  const { row, now } = await usableVerification(deps, id, "stake");
  await requireAgentFacts(deps, row.agent_id);
  // Stake locked in the StakeVault for this agent (withdrawal requests excluded), read from the chain: a wallet
  // balance proves nothing, it can be borrowed for one block.
  const balance = await deps.chain.readContract({
    address: deps.deployments.contracts.StakeVault.address,
    abi: StakeVaultAbi,
    functionName: "activeStakeOf",
    args: [BigInt(row.agent_id)],
  });
  const min = BigInt(row.min_stake_amount!);
  await markChecked(deps.pool, id, now);
  if (balance < min) {
    throw apiError(
      "INSUFFICIENT_BALANCE",
      `agent ${row.agent_id} has ${balance} USDC base units staked in the StakeVault (not pending withdrawal), below the requested ${min}`,
    );
  }
  const updated = await markVerified(deps.pool, id, {
    badge: stakeBadge(min)!,
    now,
    expiresAt: addMonths(now, VALIDITY_MONTHS),
    actualBalance: balance,
  });
  if (!updated || updated === "DOMAIN_TAKEN") {
    throw apiError("VERIFICATION_EXPIRED", `verification ${id} has expired`);
  }
  const verification = toView(updated.row, now);
  if (updated.granted) await badgeGranted(deps, verification);
  return { verification };
}

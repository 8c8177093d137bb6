// Withdrawing coverage in two phases, each signed by the agent's owner or wallet and relayed: request (starts the
// 14-day cooldown; the amount stays claimable until paid), then complete (pays the identity token's owner).
import { InsurancePoolAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress, type Hex } from "viem";
import { verifySignedAction } from "../../auth/signed-action.ts";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { isAgentWalletOrOwner } from "../../lib/deposit-tx.ts";
import { eventArgs } from "../../lib/events.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { type CoverageSummary, coverageOf, coverageSummary, pendingWithdrawal } from "../../stores/insurance.ts";
import { requireAgent } from "../guards.ts";
import { chainNow } from "../runs/escrow.ts";
import { positiveAmount, relayPool, waitForInsuranceTx } from "./pool.ts";

export interface WithdrawCoverageParameters {
  agentTokenId: number;
  phase: "request" | "complete";
  /** USDC base units; required for phase request. */
  amountUsdc?: string;
  /** Signed action insurance-withdraw-request (request) or insurance-withdraw (complete) on agent:<id>. */
  message: string;
  signature: string;
}

export interface WithdrawCoverageReturnType {
  success: boolean;
  agentTokenId: number;
  phase: "requested" | "withdrawn";
  amountUsdc: string;
  availableAt: string | null;
  paidTo: Address | null;
  txHash: Hex;
  stake: CoverageSummary;
  message: string;
}

type Pending = Awaited<ReturnType<typeof pendingWithdrawal>>;

export async function withdrawCoverage(deps: Deps, p: WithdrawCoverageParameters): Promise<WithdrawCoverageReturnType> {
  const id = p.agentTokenId;
  const amount = p.phase === "request" ? positiveAmount(p.amountUsdc!) : 0n;
  const agent = await requireAgent(deps, id);
  const action = p.phase === "request" ? "insurance-withdraw-request" : "insurance-withdraw";
  const signer = await verifySignedAction(deps, p, { action, kind: "agent", id });
  if (!isAgentWalletOrOwner(agent, signer))
    throw apiError("NOT_AGENT_OWNER", `only agent ${id}'s owner or wallet may withdraw its coverage`);
  const pending = await pendingWithdrawal(deps, id);
  return p.phase === "request"
    ? requestWithdrawal(deps, id, amount, pending, p.signature)
    : completeWithdrawal(deps, id, pending, p.signature);
}

async function requestWithdrawal(
  deps: Deps,
  id: number,
  amount: bigint,
  pending: Pending,
  signature: string,
): Promise<WithdrawCoverageReturnType> {
  if (pending.amount > 0n)
    throw apiError(
      "WITHDRAWAL_PENDING",
      `a withdrawal of ${pending.amount} is already pending (available at ${isoFromSeconds(pending.availableAt)})`,
    );
  const coverage = await coverageOf(deps, id);
  if (amount > coverage)
    throw apiError("INSUFFICIENT_COVERAGE", `agent ${id} has ${coverage} coverage, less than ${amount}`);
  const relayed = await relayPool(
    deps,
    "requestWithdrawal",
    [BigInt(id), amount],
    `insurance-withdraw-request:${signature.toLowerCase()}`,
    { agentId: BigInt(id) },
  );
  const [requested] = eventArgs<{ availableAt: bigint }>(InsurancePoolAbi, relayed.logs, "CoverageWithdrawalRequested");
  await waitForInsuranceTx(deps, relayed.txHash, "WITHDRAWAL_REQUESTED");
  const availableAt = isoFromSeconds(BigInt(requested!.availableAt));
  return {
    success: true,
    agentTokenId: id,
    phase: "requested",
    amountUsdc: amount.toString(),
    availableAt,
    paidTo: null,
    txHash: relayed.txHash,
    stake: await coverageSummary(deps, id),
    message: `Withdrawal of ${amount} requested; complete it from ${availableAt}. The amount stays claimable until paid.`,
  };
}

async function completeWithdrawal(
  deps: Deps,
  id: number,
  pending: Pending,
  signature: string,
): Promise<WithdrawCoverageReturnType> {
  if (pending.amount === 0n)
    throw apiError("NO_PENDING_WITHDRAWAL", `agent ${id} has no pending withdrawal; request one first`);
  const now = await chainNow(deps);
  if (now < pending.availableAt)
    throw apiError(
      "WITHDRAWAL_NOT_READY",
      `the cooldown ends at ${isoFromSeconds(pending.availableAt)} (chain time is ${isoFromSeconds(now)})`,
    );
  const relayed = await relayPool(deps, "withdraw", [BigInt(id)], `insurance-withdraw:${signature.toLowerCase()}`, {
    agentId: BigInt(id),
  });
  const [paid] = eventArgs<{ to: string; amount: bigint }>(InsurancePoolAbi, relayed.logs, "CoverageWithdrawn");
  await waitForInsuranceTx(deps, relayed.txHash, "WITHDRAWN");
  const paidTo = getAddress(paid!.to);
  return {
    success: true,
    agentTokenId: id,
    phase: "withdrawn",
    amountUsdc: paid!.amount.toString(),
    availableAt: null,
    paidTo,
    txHash: relayed.txHash,
    stake: await coverageSummary(deps, id),
    message: `Withdrew ${paid!.amount} USDC base units to the agent's owner ${paidTo}.`,
  };
}

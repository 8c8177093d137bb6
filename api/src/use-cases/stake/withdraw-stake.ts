// Withdrawing an agent's stake in two phases, each a signed action of the identity token's owner, relayed (no ETH):
// request (StakeVault.requestWithdrawal: starts the vault's cooldown; the amount stays slashable and may not dip into
// what open runs lock) and complete (StakeVault.withdraw: pays the token owner once the cooldown is over). The vault
// pays only the token's owner whoever sends the call, so the relayer can carry it; the owner's signature is what
// makes the API send it.
import { StakeVaultAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress, type Hex, isAddressEqual } from "viem";
import { verifySignedAction } from "../../auth/signed-action.ts";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { eventArgs } from "../../lib/events.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import { requireAgent } from "../guards.ts";
import { chainNow } from "../runs/escrow.ts";

export interface WithdrawStakeParameters {
  agentId: number;
  phase: "request" | "complete";
  /** USDC base units; required for phase request. */
  amount?: string;
  /** Signed action stake-withdraw-request (request) or stake-withdraw (complete) on agent:<id>, by the token owner. */
  message: string;
  signature: string;
}

export interface WithdrawStakeReturnType {
  success: boolean;
  agentId: number;
  phase: "requested" | "withdrawn";
  amount: string;
  availableAt: string | null;
  paidTo: Address | null;
  txHash: Hex;
  message: string;
}

/** StakeVault reverts the checks below did not foresee (a race with a slash, a claim or another request). */
const REVERTS: RevertCodes = {
  StakeVaultZeroAmount: "INVALID_AMOUNT",
  StakeVaultWithdrawalPending: "WITHDRAWAL_PENDING",
  StakeVaultNoWithdrawal: "NO_PENDING_WITHDRAWAL",
  StakeVaultCooldownActive: "WITHDRAWAL_NOT_READY",
  StakeVaultInsufficientStake: "INSUFFICIENT_STAKE",
  StakeVaultStakeLocked: "STAKE_LOCKED",
};

export async function withdrawStake(deps: Deps, p: WithdrawStakeParameters): Promise<WithdrawStakeReturnType> {
  const id = p.agentId;
  const agent = await requireAgent(deps, id);
  const action = p.phase === "request" ? "stake-withdraw-request" : "stake-withdraw";
  const signer = await verifySignedAction(deps, p, { action, kind: "agent", id });
  if (!isAddressEqual(signer, agent.owner as Address))
    throw apiError("NOT_AGENT_OWNER", `only agent ${id}'s token owner may withdraw its stake`);
  const vault = { address: deps.deployments.contracts.StakeVault.address, abi: StakeVaultAbi } as const;
  const [pendingAmount, availableAt] = await deps.chain.readContract({
    ...vault,
    functionName: "pendingWithdrawal",
    args: [BigInt(id)],
  });
  const key = `${action}:${p.signature.toLowerCase()}`;
  const relay = (functionName: "requestWithdrawal" | "withdraw", args: readonly bigint[]) =>
    relayMapped(deps, "StakeVault", StakeVaultAbi, functionName, args as never, key, REVERTS, {
      agentId: BigInt(id),
    });

  if (p.phase === "request") {
    if (p.amount === undefined) throw apiError("VALIDATION_ERROR", "amount is required to request a withdrawal");
    const amount = BigInt(p.amount);
    if (amount === 0n) throw apiError("INVALID_AMOUNT", "amount must be greater than 0");
    if (pendingAmount > 0n)
      throw apiError(
        "WITHDRAWAL_PENDING",
        `a withdrawal of ${pendingAmount} is already pending (available at ${isoFromSeconds(BigInt(availableAt))})`,
      );
    const relayed = await relay("requestWithdrawal", [BigInt(id), amount]);
    const [requested] = eventArgs<{ availableAt: bigint }>(StakeVaultAbi, relayed.logs, "WithdrawalRequested");
    await deps.indexer.waitForBlock(BigInt(relayed.blockNumber), deps.env.INDEXER_WAIT_MS);
    const at = isoFromSeconds(BigInt(requested!.availableAt));
    return {
      success: true,
      agentId: id,
      phase: "requested",
      amount: amount.toString(),
      availableAt: at,
      paidTo: null,
      txHash: relayed.txHash,
      message: `Withdrawal of ${amount} requested; complete it from ${at}. The amount stays slashable until paid.`,
    };
  }

  if (pendingAmount === 0n)
    throw apiError("NO_PENDING_WITHDRAWAL", `agent ${id} has no pending withdrawal; request one first`);
  const now = await chainNow(deps);
  if (now < BigInt(availableAt))
    throw apiError(
      "WITHDRAWAL_NOT_READY",
      `the cooldown ends at ${isoFromSeconds(BigInt(availableAt))} (chain time is ${isoFromSeconds(now)})`,
    );
  const relayed = await relay("withdraw", [BigInt(id)]);
  const [paid] = eventArgs<{ to: string; amount: bigint }>(StakeVaultAbi, relayed.logs, "Withdrawn");
  await deps.indexer.waitForBlock(BigInt(relayed.blockNumber), deps.env.INDEXER_WAIT_MS);
  const paidTo = getAddress(paid!.to);
  return {
    success: true,
    agentId: id,
    phase: "withdrawn",
    amount: paid!.amount.toString(),
    availableAt: null,
    paidTo,
    txHash: relayed.txHash,
    message: `Withdrew ${paid!.amount} USDC base units to the agent's owner ${paidTo}.`,
  };
}

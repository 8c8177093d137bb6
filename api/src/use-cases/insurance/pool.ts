// Writes to the InsurancePool: relayed calls with revert -> error-code mapping, and the wait until the indexer shows
// the transaction (the insurance answers read indexed coverage).
import { InsurancePoolAbi } from "@agenthub/common/generated/abis";
import type { RelayResult, RelayScope } from "@agenthub/relayer/protocol";
import type { ContractFunctionArgs, ContractFunctionName } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { indexedInsuranceTx } from "../../stores/insurance.ts";

type PoolWrite = ContractFunctionName<typeof InsurancePoolAbi, "nonpayable">;

/** InsurancePool reverts the API's checks did not foresee (races) -> stable codes. */
const REVERTS: RevertCodes = {
  InsurancePoolZeroAmount: "INVALID_AMOUNT",
  InsurancePoolWithdrawalPending: "WITHDRAWAL_PENDING",
  InsurancePoolNoWithdrawal: "NO_PENDING_WITHDRAWAL",
  InsurancePoolCooldownActive: "WITHDRAWAL_NOT_READY",
  InsurancePoolAgentHoldsRuns: "COVERAGE_LOCKED",
  InsurancePoolClaimWindowOpen: "COVERAGE_LOCKED",
  InsurancePoolInsufficientCoverage: "INSUFFICIENT_COVERAGE",
  InsurancePoolAlreadyClaimed: "ALREADY_CLAIMED",
  InsurancePoolNoCoverage: "NO_COVERAGE",
  InsurancePoolNoFailure: "NO_FAILED_AGENT",
  InsurancePoolLossNotVerified: "LOSS_NOT_VERIFIED",
  InsurancePoolNoLoss: "NO_INSURED_LOSS",
  InsurancePoolNoCoverDeclared: "NO_COVER_DECLARED",
  ERC20InsufficientAllowance: "INVALID_PERMIT",
  ERC20InsufficientBalance: "INSUFFICIENT_BALANCE",
};

/** Sends one InsurancePool call through the relayer, keyed by `idempotencyKey`, acting for `scope`. */
export function relayPool<name extends PoolWrite>(
  deps: Deps,
  functionName: name,
  args: ContractFunctionArgs<typeof InsurancePoolAbi, "nonpayable", name>,
  idempotencyKey: string,
  scope?: RelayScope,
): Promise<RelayResult> {
  return relayMapped(deps, "InsurancePool", InsurancePoolAbi, functionName, args, idempotencyKey, REVERTS, scope);
}

/** Waits until the indexer shows the pool event `kind` of transaction `hash` (504 INDEXER_LAGGING past the bound). */
export async function waitForInsuranceTx(deps: Deps, hash: string, kind: string): Promise<void> {
  await waitForIndexer(`insurance ${hash}`, () => indexedInsuranceTx(deps, hash, kind), deps.env.INDEXER_WAIT_MS);
}

/** amountUsdc (base units) as a bigint, refused when 0. */
export function positiveAmount(value: string): bigint {
  const amount = BigInt(value);
  if (amount === 0n) throw apiError("INVALID_AMOUNT", "amountUsdc must be greater than 0");
  return amount;
}

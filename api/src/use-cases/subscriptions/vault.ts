// The SubscriptionVault on chain: where each subscription's prepaid USDC is escrowed for its subscriber. The API's
// row is a mirror of the vault's state (balance, status, next run, runs created), refreshed from the chain after
// every write and on reads of one subscription; the chain is the truth about money.
import { SubscriptionVaultAbi } from "@agenthub/common/generated/abis";
import type { RelayResult, RelayScope } from "@agenthub/relayer/protocol";
import type { Abi, Address, ContractFunctionArgs, ContractFunctionName, Log } from "viem";
import { isAddressEqual, parseEventLogs } from "viem";
import type { Deps } from "../../context.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { type SubscriptionRow, type SubscriptionStatus, syncMirror } from "../../stores/subscriptions.ts";

/** Revisions allowed on each subscription run. */
export const SUBSCRIPTION_RUN_MAX_REVISIONS = 2;

export const vault = (deps: Deps) => ({
  address: deps.deployments.contracts.SubscriptionVault.address,
  abi: SubscriptionVaultAbi,
});

/** The vault's Status enum (None, Active, Paused, Completed, Cancelled). */
const STATUS = ["NONE", "ACTIVE", "PAUSED", "COMPLETED", "CANCELLED"] as const;

export interface VaultState {
  status: SubscriptionStatus;
  balance: bigint;
  perRun: bigint;
  nextRunAt: bigint | null;
  runsCreated: number;
}

/** The subscription's state on chain; EXHAUSTED is an active subscription whose balance cannot pay one run. */
export async function vaultState(deps: Deps, vaultId: bigint): Promise<VaultState> {
  const v = vault(deps);
  const [sub, perRun] = await Promise.all([
    deps.chain.readContract({ ...v, functionName: "getSubscription", args: [vaultId] }),
    deps.chain.readContract({ ...v, functionName: "costPerRun", args: [vaultId] }),
  ]);
  const stored = STATUS[sub.status]!;
  if (stored === "NONE") throw new Error(`vault subscription ${vaultId} does not exist`);
  const status: SubscriptionStatus = stored === "ACTIVE" && sub.balance < perRun ? "EXHAUSTED" : stored;
  const ended = status === "COMPLETED" || status === "CANCELLED";
  return {
    status,
    balance: sub.balance,
    perRun,
    nextRunAt: ended ? null : BigInt(sub.nextRunAt),
    runsCreated: sub.runsCreated,
  };
}

/**
 * Refreshes the row's mirror of the vault; while a reserved slot is being sent, its schedule fields (advanced by
 * the reservation) are kept so the scheduler does not reserve the same slot twice. Returns the row.
 */
export async function syncFromChain(deps: Deps, row: SubscriptionRow): Promise<SubscriptionRow> {
  if (row.vaultId === null) return row;
  const s = await vaultState(deps, BigInt(row.vaultId));
  return (await syncMirror(deps, row.id, s)) ?? row;
}

/** The vault's reverts the API's own checks did not foresee (a direct transaction raced it). */
const VAULT_REVERTS: RevertCodes = {
  SubscriptionVaultInvalidStatus: "INVALID_SUBSCRIPTION_STATE",
  SubscriptionVaultInvalidSignature: "INVALID_CONSENT",
  SubscriptionVaultExpiredSignature: "INVALID_CONSENT",
  SubscriptionVaultInvalidTerms: "INVALID_CADENCE",
  SubscriptionVaultZeroAmount: "VALIDATION_ERROR",
  ERC20InsufficientBalance: "INSUFFICIENT_FUNDS",
  ERC20InsufficientAllowance: "INVALID_PERMIT",
  EnforcedPause: { code: "CONTRACT_PAUSED", alt: true },
};

type VaultAbi = typeof SubscriptionVaultAbi;

/** One SubscriptionVault call through the relayer, once per `idempotencyKey`; reverts become stable 4xx codes. */
export function relayVault<name extends ContractFunctionName<VaultAbi, "nonpayable">>(
  deps: Deps,
  functionName: name,
  args: ContractFunctionArgs<VaultAbi, "nonpayable", name>,
  idempotencyKey: string,
  scope?: RelayScope,
): Promise<RelayResult> {
  return relayMapped(
    deps,
    "SubscriptionVault",
    SubscriptionVaultAbi,
    functionName,
    args,
    idempotencyKey,
    VAULT_REVERTS,
    scope,
  );
}

/** The first `eventName` the vault emitted in `logs`. */
export function vaultEvent<const name extends string>(deps: Deps, logs: readonly Log[], eventName: name) {
  const v = vault(deps);
  return parseEventLogs({
    abi: v.abi as Abi,
    eventName,
    logs: logs.filter((l) => isAddressEqual(l.address as Address, v.address)) as Log[],
  })[0] as unknown as { args: Record<string, unknown> } | undefined;
}

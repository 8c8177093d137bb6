// The SubscriptionVault on chain: where each subscription's prepaid USDC is escrowed for its subscriber. The API's
// row is a mirror of the vault's state (balance, status, next run, runs created), refreshed from the chain after
// every write and on reads of one subscription; the chain is the truth about money.
import { SubscriptionVaultAbi } from "@agenthub/common/generated/abis";
import type { Abi, Address, Log } from "viem";
import { isAddressEqual, parseEventLogs } from "viem";
import type { Deps } from "../../context.ts";
import type { SubscriptionRow, SubscriptionStatus } from "./repository.ts";

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
  if (row.vault_id === null) return row;
  const s = await vaultState(deps, BigInt(row.vault_id));
  const r = await deps.pool.query<SubscriptionRow>(
    `with pending as (
       select exists (select 1 from api.subscription_run where subscription_id = $1 and status = 'PENDING') p)
     update api.subscription set status = $2,
       balance_remaining = case when (select p from pending) then balance_remaining else $3 end,
       next_run_at = case when (select p from pending) then next_run_at else $4 end,
       runs_created = case when (select p from pending) then runs_created else $5 end,
       updated_at = now()
     where id = $1 returning *`,
    [row.id, s.status, s.balance.toString(), s.nextRunAt?.toString() ?? null, s.runsCreated],
  );
  return r.rows[0] ?? row;
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

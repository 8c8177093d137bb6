// Insurance facts: balances come from the InsurancePool itself (chain wins), history from the indexer's views, and
// the stakes recorded through the API (each transaction counts once).
import { InsurancePoolAbi, RunEscrowAbi } from "@agenthub/common/generated/abis";
import type { Deps } from "../context.ts";
import { isoFromSeconds } from "../lib/time.ts";
import { recordTxUse } from "./used-tx.ts";

export interface CoverageSummary {
  agentTokenId: number;
  coverage: string;
  availableCoverage: string;
  pendingWithdrawal: { amount: string; availableAt: string } | null;
  withdrawalCooldownSeconds: number;
  updatedAt: string | null;
}

export const WITHDRAWAL_COOLDOWN_SECONDS = 14 * 24 * 3600;

const pool = (deps: Deps) => ({ address: deps.deployments.contracts.InsurancePool.address, abi: InsurancePoolAbi });

/** Coverage and pending withdrawal read from the contract, plus the last indexed change. */
export async function coverageSummary(deps: Deps, agentId: number): Promise<CoverageSummary> {
  const id = BigInt(agentId);
  const [coverage, [pendingAmount, availableAt], indexed] = await Promise.all([
    deps.chain.readContract({ ...pool(deps), functionName: "coverageOf", args: [id] }),
    deps.chain.readContract({ ...pool(deps), functionName: "pendingWithdrawal", args: [id] }),
    deps.pool.query<{ updated_at: string }>(
      `select updated_at::text from ${deps.views.names.insuranceCoverage} where agent_id = $1`,
      [agentId],
    ),
  ]);
  const updatedAt = indexed.rows[0]?.updated_at;
  return {
    agentTokenId: agentId,
    coverage: coverage.toString(),
    availableCoverage: (coverage - pendingAmount).toString(),
    pendingWithdrawal:
      pendingAmount === 0n ? null : { amount: pendingAmount.toString(), availableAt: isoFromSeconds(availableAt) },
    withdrawalCooldownSeconds: WITHDRAWAL_COOLDOWN_SECONDS,
    updatedAt: updatedAt === undefined ? null : isoFromSeconds(BigInt(updatedAt)),
  };
}

export async function hasCoverage(deps: Deps, agentId: number, required: bigint): Promise<boolean> {
  return deps.chain.readContract({ ...pool(deps), functionName: "hasCoverage", args: [BigInt(agentId), required] });
}

/** Coverage not pending withdrawal: what a run's required coverage is compared with (as InsurancePool.hasCoverage). */
export async function availableCoverage(deps: Deps, agentId: number): Promise<bigint> {
  const [coverage, { amount }] = await Promise.all([coverageOf(deps, agentId), pendingWithdrawal(deps, agentId)]);
  return coverage - amount;
}

export async function pendingWithdrawal(deps: Deps, agentId: number) {
  const [amount, availableAt] = await deps.chain.readContract({
    ...pool(deps),
    functionName: "pendingWithdrawal",
    args: [BigInt(agentId)],
  });
  return { amount, availableAt: BigInt(availableAt) };
}

export async function coverageOf(deps: Deps, agentId: number | bigint): Promise<bigint> {
  return deps.chain.readContract({ ...pool(deps), functionName: "coverageOf", args: [BigInt(agentId)] });
}

/** IRunEscrow.FailureKind by index, as the API names it. */
const FAILURE_KINDS = [null, "REJECTED", "TIMED_OUT", "DISPUTE_LOST"] as const;
export type FailureKind = Exclude<(typeof FAILURE_KINDS)[number], null>;

export interface Claimability {
  failedAgentId: bigint;
  failureKind: FailureKind | null;
  /** The cover (agreed damages) the poster declared for the run (0 if none). */
  cover: bigint;
  /** What a claim pays before the coverage cap: the cover minus the stake already slashed to the poster (0 if none). */
  insuredLoss: bigint;
  claimed: boolean;
  coverage: bigint;
  /** Why a claim is not possible now (null when it is), as the claim route's error code. */
  refusal:
    | "NO_FAILED_AGENT"
    | "LOSS_NOT_VERIFIED"
    | "ALREADY_CLAIMED"
    | "NO_COVER_DECLARED"
    | "NO_INSURED_LOSS"
    | "NO_COVERAGE"
    | null;
}

/**
 * Whether the poster of on-chain run `runId` may claim, read from the chain (escrow failure record, pool): only a
 * verified failure (timeout, lost dispute) of a run with a declared cover pays, once per run, at most the cover net
 * of the slash the poster got (the escrow's refund is the poster's own deposit, not compensation).
 */
export async function claimability(deps: Deps, runId: bigint): Promise<Claimability> {
  const escrow = { address: deps.deployments.contracts.RunEscrow.address, abi: RunEscrowAbi };
  const [[agentId, kind, slashed], cover, claimed] = await Promise.all([
    deps.chain.readContract({ ...escrow, functionName: "failureOf", args: [runId] }),
    deps.chain.readContract({ ...escrow, functionName: "coverOf", args: [runId] }),
    deps.chain.readContract({ ...pool(deps), functionName: "isClaimed", args: [runId] }),
  ]);
  const insuredLoss = agentId !== 0n && kind !== 1 && slashed < cover ? cover - slashed : 0n;
  const coverage = agentId === 0n ? 0n : await coverageOf(deps, agentId);
  const refusal =
    agentId === 0n
      ? "NO_FAILED_AGENT"
      : kind === 1
        ? "LOSS_NOT_VERIFIED"
        : claimed
          ? "ALREADY_CLAIMED"
          : cover === 0n
            ? "NO_COVER_DECLARED"
            : insuredLoss === 0n
              ? "NO_INSURED_LOSS"
              : coverage === 0n
                ? "NO_COVERAGE"
                : null;
  const failureKind = FAILURE_KINDS[kind] ?? null;
  return { failedAgentId: agentId, failureKind, cover, insuredLoss, claimed, coverage, refusal };
}

export async function stakeEntries(deps: Deps, agentId: number, limit: number, offset: number) {
  const schema = deps.views.names;
  const [rows, count] = await Promise.all([
    deps.pool.query<{ account: string; amount: string; tx_hash: string; timestamp: string }>(
      `select account, amount::text, tx_hash, timestamp::text from ${schema.insuranceEvent}
        where agent_id = $1 and kind = 'STAKED' order by timestamp desc, id desc limit $2 offset $3`,
      [agentId, limit, offset],
    ),
    deps.pool.query<{ n: number }>(
      `select count(*)::int n from ${schema.insuranceEvent} where agent_id = $1 and kind = 'STAKED'`,
      [agentId],
    ),
  ]);
  return {
    total: count.rows[0]!.n,
    stakes: rows.rows.map((r) => ({
      from: r.account,
      amountUsdc: r.amount,
      txHash: r.tx_hash,
      stakedAt: isoFromSeconds(BigInt(r.timestamp)),
    })),
  };
}

export interface ClaimRow {
  agentTokenId: number;
  poster: string;
  amountUsdc: string;
  txHash: string;
  claimedAt: string;
}

export async function claimsOfRun(deps: Deps, onchainRunId: bigint, txHash?: string): Promise<ClaimRow[]> {
  const r = await deps.pool.query<{
    agent_id: string;
    account: string;
    amount: string;
    tx_hash: string;
    timestamp: string;
  }>(
    `select agent_id::text, account, amount::text, tx_hash, timestamp::text from ${deps.views.names.insuranceEvent}
      where run_id = $1 and kind = 'CLAIM_PAID' and ($2::text is null or tx_hash = $2) order by timestamp, id`,
    [onchainRunId.toString(), txHash?.toLowerCase() ?? null],
  );
  return r.rows.map((row) => ({
    agentTokenId: Number(row.agent_id),
    poster: row.account,
    amountUsdc: row.amount,
    txHash: row.tx_hash,
    claimedAt: isoFromSeconds(BigInt(row.timestamp)),
  }));
}

/** Waits until the indexer holds an insurance event of `kind` from transaction `hash`. */
export async function indexedInsuranceTx(deps: Deps, hash: string, kind: string) {
  const r = await deps.pool.query(
    `select 1 from ${deps.views.names.insuranceEvent} where tx_hash = $1 and kind = $2 limit 1`,
    [hash.toLowerCase(), kind],
  );
  return r.rows[0] as unknown;
}

/** Records an insurance stake transaction; false when that transaction was already recorded. */
export async function recordInsuranceStake(
  deps: Pick<Deps, "pool">,
  r: { txHash: string; agentId: number; wallet: string; amount: bigint; mode: "PERMIT" | "TX" },
): Promise<boolean> {
  return recordTxUse(deps.pool, {
    txHash: r.txHash,
    purpose: "insurance-stake",
    subject: r.agentId,
    detail: { wallet: r.wallet, amount: r.amount.toString(), mode: r.mode },
  });
}

// Writes to RunEscrow: per-run serialization, relayed transactions with revert -> error-code mapping, and the
// wait until the indexer shows the transaction's events (the API answers with the indexed result).
import { randomUUID } from "node:crypto";
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import type { RelayResult } from "@agenthub/relayer/relayer";
import type { ContractFunctionArgs, ContractFunctionName } from "viem";
import type { Deps } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { runEventCount, stakeEventCount } from "../../lib/indexed-events.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { waitForIndexer } from "../../lib/wait.ts";

/** A lease is longer than any request may hold it (receipt + indexer wait); waiting for one is bounded. */
const LOCK_LEASE_SECONDS = 120;
const LOCK_WAIT_MS = 60_000;

/**
 * Runs `fn` while holding run `id`'s lease (api.run_lock). Requests on one run are serialized across API
 * processes without holding a pooled connection; a crashed holder's lease expires.
 */
export async function withRunLock<T>(deps: Deps, id: number, fn: () => Promise<T>): Promise<T> {
  const holder = randomUUID();
  const deadline = Date.now() + LOCK_WAIT_MS;
  let delay = 20;
  while (true) {
    const got = await deps.pool.query(
      `insert into api.run_lock (run_id, holder, expires_at) values ($1, $2, now() + make_interval(secs => $3))
       on conflict (run_id) do update set holder = excluded.holder, expires_at = excluded.expires_at
         where api.run_lock.expires_at < now()
       returning holder`,
      [id, holder, LOCK_LEASE_SECONDS],
    );
    if (got.rowCount === 1) break;
    if (Date.now() > deadline) throw new ApiError(409, "RUN_BUSY", `run ${id} is busy with another request; retry`);
    await new Promise((r) => setTimeout(r, delay));
    delay = Math.min(delay * 2, 200);
  }
  try {
    return await fn();
  } finally {
    await deps.pool.query("delete from api.run_lock where run_id = $1 and holder = $2", [id, holder]);
  }
}

/** Latest chain time, uncached: deadline and timeout checks must agree with the next block. */
export const chainNow = (deps: Deps) => deps.clock.fresh();

type EscrowWrite = ContractFunctionName<typeof RunEscrowAbi, "nonpayable">;

/** Contract custom errors (and token errors under createRunWithAuthorization) -> the API's stable codes. */
const REVERT_CODES: RevertCodes = {
  RunEscrowInvalidState: { status: 409, code: "INVALID_RUN_STATE" },
  RunEscrowDeadlinePassed: { status: 400, code: "DEADLINE_PASSED" },
  // The vault's lock at claim time: trust state and minimum active stake, as the chain sees them.
  StakeVaultInsufficientStake: { status: 403, code: "INSUFFICIENT_STAKE" },
  StakeVaultAgentFrozen: { status: 403, code: "AGENT_FROZEN" },
  StakeVaultAgentBanned: { status: 403, code: "AGENT_BANNED" },
  StakeVaultTooManyLocks: { status: 409, code: "TOO_MANY_RUNS" },
  RunEscrowRevisionsExhausted: { status: 409, code: "REVISIONS_EXHAUSTED" },
  RunEscrowRevisionsRemaining: { status: 409, code: "REVISIONS_REMAINING" },
  RunEscrowTimeoutNotReached: { status: 409, code: "TIMEOUT_NOT_REACHED" },
  // The party's on-chain consent (the API checks it first; these are races, e.g. the same consent sent twice).
  RunEscrowWrongSigner: { status: 403, code: "CONSENT_SIGNER_MISMATCH" },
  RunEscrowConsentExpired: { status: 400, code: "CONSENT_EXPIRED" },
  RunEscrowInvalidConsent: { status: 403, code: "INVALID_CONSENT" },
  InvalidAccountNonce: { status: 409, code: "CONSENT_NONCE_USED" },
  ERC3009InvalidSignature: { status: 400, code: "INVALID_AUTHORIZATION" },
  ERC3009InvalidAuthorizationTime: { status: 400, code: "INVALID_AUTHORIZATION" },
  ERC3009UsedAuthorization: { status: 409, code: "AUTHORIZATION_USED" },
  ERC20InsufficientBalance: { status: 400, code: "INSUFFICIENT_BALANCE" },
};

/**
 * Sends one RunEscrow call through the relayer. A revert the API's own checks did not foresee (a race with
 * another writer) still becomes a stable 4xx; `overrides` lets a route rename codes (claim: RUN_NOT_AVAILABLE).
 */
export async function relayEscrow<name extends EscrowWrite>(
  deps: Deps,
  functionName: name,
  args: ContractFunctionArgs<typeof RunEscrowAbi, "nonpayable", name>,
  opts: { idempotencyKey?: string; overrides?: RevertCodes } = {},
): Promise<RelayResult> {
  return relayMapped(deps, "RunEscrow", RunEscrowAbi, functionName, args, opts.idempotencyKey, {
    ...REVERT_CODES,
    ...opts.overrides,
  });
}

/**
 * Waits until the indexer has every RunEscrow event (chain.run_event) and StakeVault slash and trust change
 * (chain.stake_event) of the transaction, so the answer reflects the indexed result (status FROZEN / BANNED
 * included). Bounded by INDEXER_WAIT_MS (504 INDEXER_LAGGING).
 */
export async function waitForRunTx(deps: Deps, result: Pick<RelayResult, "txHash" | "logs">): Promise<void> {
  const { RunEscrow, StakeVault } = deps.deployments.contracts;
  const escrowLogs = runEventCount(RunEscrow.address, result.logs);
  const vaultLogs = stakeEventCount(StakeVault.address, result.logs);
  const schema = deps.views.names;
  const hash = result.txHash.toLowerCase();
  await waitForIndexer(
    `run transaction ${hash}`,
    async () => {
      const r = await deps.pool.query<{ runs: number; stakes: number }>(
        `select (select count(*)::int from ${schema.runEvent} where tx_hash = $1) runs,
                (select count(*)::int from ${schema.stakeEvent} where tx_hash = $1) stakes`,
        [hash],
      );
      const row = r.rows[0]!;
      return row.runs >= escrowLogs && row.stakes >= vaultLogs ? true : undefined;
    },
    deps.env.INDEXER_WAIT_MS,
  );
}

export async function recordAction(
  deps: Deps,
  entry: {
    runId: number;
    action: string;
    signer: string | null;
    agentId?: number | null;
    txHash: string | null;
    detail?: Record<string, unknown>;
  },
): Promise<void> {
  await deps.pool.query(
    "insert into api.run_action (run_id, action, signer, agent_id, tx_hash, detail) values ($1, $2, $3, $4, $5, $6)",
    [
      entry.runId,
      entry.action,
      entry.signer,
      entry.agentId ?? null,
      entry.txHash?.toLowerCase() ?? null,
      JSON.stringify(entry.detail ?? {}),
    ],
  );
}

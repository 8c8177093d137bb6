// Writes to RunEscrow: relayed transactions with revert -> error-code mapping, and the wait until the indexer shows
// the transaction's events (the API answers with the indexed result).
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import type { RelayResult } from "@agenthub/relayer/relayer";
import type { ContractFunctionArgs, ContractFunctionName } from "viem";
import type { Deps } from "../../context.ts";
import { runEventCount, stakeEventCount } from "../../lib/indexed-events.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { indexedTxEvents } from "../../stores/runs.ts";

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
  const hash = result.txHash.toLowerCase();
  await waitForIndexer(
    `run transaction ${hash}`,
    async () => {
      const row = await indexedTxEvents(deps, hash);
      return row.runs >= escrowLogs && row.stakes >= vaultLogs ? true : undefined;
    },
    deps.env.INDEXER_WAIT_MS,
  );
}

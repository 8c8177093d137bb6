// Writes to RunEscrow: relayed transactions with revert -> error-code mapping, and the wait until the indexer shows
// the transaction's events (the API answers with the indexed result).
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import type { RelayResult } from "@agenthub/relayer/protocol";
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
  RunEscrowInvalidState: "INVALID_RUN_STATE",
  RunEscrowDeadlinePassed: "DEADLINE_PASSED",
  RunEscrowCoverTooHigh: "COVER_TOO_HIGH",
  // The vault's check at claim time: trust state and minimum active stake, as the chain sees them.
  StakeVaultInsufficientStake: { code: "INSUFFICIENT_STAKE", alt: true },
  StakeVaultAgentFrozen: "AGENT_FROZEN",
  StakeVaultAgentBanned: "AGENT_BANNED",
  RunEscrowTooManyRuns: "TOO_MANY_RUNS",
  RunEscrowRevisionsExhausted: "REVISIONS_EXHAUSTED",
  RunEscrowRevisionsRemaining: "REVISIONS_REMAINING",
  RunEscrowTimeoutNotReached: "TIMEOUT_NOT_REACHED",
  // The party's on-chain consent (the API checks it first; these are races, e.g. the same consent sent twice).
  RunEscrowWrongSigner: "CONSENT_SIGNER_MISMATCH",
  RunEscrowConsentExpired: "CONSENT_EXPIRED",
  RunEscrowInvalidConsent: { code: "INVALID_CONSENT", alt: true },
  InvalidAccountNonce: "CONSENT_NONCE_USED",
  ERC3009InvalidSignature: "INVALID_AUTHORIZATION",
  ERC3009InvalidAuthorizationTime: "INVALID_AUTHORIZATION",
  ERC3009UsedAuthorization: "AUTHORIZATION_USED",
  ERC20InsufficientBalance: "INSUFFICIENT_BALANCE",
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

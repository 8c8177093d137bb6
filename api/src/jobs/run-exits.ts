// Ends runs past an escrow window without anyone asking (docs/decisions.md, "Every run an agent holds can end without
// the arbiter"): RunEscrow.releaseAfterReview for a submission the poster left alone past the review window (the agent
// is credited as on an approval; the reward-payout job pays the owner) and expireDispute for a dispute unresolved past
// the dispute window (the poster is refunded). Both are open to anyone and pay a fixed party, so the relayer sends
// them and neither agent nor poster needs ETH. One relay per run and exit (its idempotency key); the windows are read
// from the escrow each tick (the timelock may change them) and compared with chain time.
import { RunEscrowAbi } from "@agenthub/common/generated/abis";
import type { Deps } from "../context.ts";
import { disputesPastWindow, submissionsPastReview } from "../stores/run-exits.ts";
import { relayPayout } from "./escrow-payout.ts";

/** Runs ended per exit and tick (the rest wait for the next tick). */
const EXITS_PER_TICK = 50;

type Exit = "releaseAfterReview" | "expireDispute";

export interface RunExitsResult {
  released: string[];
  expired: string[];
  skipped: string[];
}

export async function endRunsPastWindows(deps: Deps): Promise<RunExitsResult> {
  const escrow = deps.deployments.contracts.RunEscrow.address;
  const [[review, dispute], now] = await Promise.all([
    deps.chain.readContract({ address: escrow, abi: RunEscrowAbi, functionName: "windows" }),
    deps.clock.now(),
  ]);
  const [submitted, disputed] = await Promise.all([
    submissionsPastReview(deps, now - review, EXITS_PER_TICK),
    disputesPastWindow(deps, now - dispute, EXITS_PER_TICK),
  ]);
  const result: RunExitsResult = { released: [], expired: [], skipped: [] };
  for (const runId of submitted)
    (await exit(deps, "releaseAfterReview", runId))
      ? result.released.push(`${runId}`)
      : result.skipped.push(`${runId}`);
  for (const runId of disputed)
    (await exit(deps, "expireDispute", runId)) ? result.expired.push(`${runId}`) : result.skipped.push(`${runId}`);
  if (result.released.length + result.expired.length > 0)
    deps.logger.info({ released: result.released, expired: result.expired }, "runs past their escrow window ended");
  return result;
}

/**
 * True when the exit went through. False when the escrow refused it with nothing to retry now: someone else ended
 * the run first or the indexer lags (RunEscrowInvalidState), the index ran ahead of the chain's window
 * (RunEscrowTimeoutNotReached), or a pause landed; or when the relay failed, logged so one run cannot hold up the
 * others. The next tick looks again.
 */
async function exit(deps: Deps, functionName: Exit, runId: bigint): Promise<boolean> {
  try {
    const sent = await relayPayout(
      deps,
      functionName,
      [runId],
      ["RunEscrowInvalidState", "RunEscrowTimeoutNotReached"],
      `run-exit:${functionName}:${runId}`,
    );
    return "txHash" in sent;
  } catch (err) {
    deps.logger.warn({ err, runId: `${runId}`, exit: functionName }, "run exit not relayed; retried next tick");
    return false;
  }
}

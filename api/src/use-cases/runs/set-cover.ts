// A run's cover: the agreed damages insurance pays its poster if the agent times out or loses a dispute (never the
// deposit, which the escrow refunds). The poster declares it in the draft (requiredCoverage) and, once the run is
// funded and before anyone claims it, sets it in the InsurancePool with an EIP-712 RunCover signature the relayer
// submits (setRunCoverBySig; the pool verifies it, ERC-1271 included). See docs/decisions.md, "Insurance pays agreed
// damages, once per run".
import { InsurancePoolAbi } from "@agenthub/common/generated/abis";
import { runCoverTypedData } from "@agenthub/common/protocol";
import type { Address, Hex } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { indexedRunCover, type RunRecord, recordAction, withRunLock } from "../../stores/runs.ts";
import { verifySignedBy } from "../guards.ts";
import { chainNow } from "./escrow.ts";
import { getRun } from "./get-run.ts";

/** Pool reverts the checks below did not foresee (a direct setRunCover or claim racing this request). */
const REVERTS: RevertCodes = {
  InsurancePoolCoverAlreadySet: "COVER_ALREADY_SET",
  InsurancePoolRunNotOpen: "INVALID_RUN_STATE",
  InsurancePoolSignatureExpired: "CONSENT_EXPIRED",
  InsurancePoolInvalidSignature: { code: "INVALID_CONSENT", alt: true },
};

export interface SetRunCoverParameters {
  runId: number;
  message: string;
  signature: string;
  /** The poster's EIP-712 RunCover in the InsurancePool's domain. */
  cover: { amount: bigint; deadline: bigint; signature: string };
}

export interface SetRunCoverReturnType {
  run: RunRecord;
  txHash: Hex;
}

/** Checks a cover request against the fresh run (under its lease): funded, OPEN, never claimed, not set yet. */
async function checkCover(deps: Deps, run: RunRecord, cover: SetRunCoverParameters["cover"]): Promise<bigint> {
  if (run.onchainRunId === null) {
    throw apiError("INVALID_RUN_STATE", `run ${run.id} is not funded yet: fund it, then set its cover`);
  }
  if (run.requiredCoverage > 0n && !run.coverPending) {
    throw apiError("COVER_ALREADY_SET", `run ${run.id}'s cover is already ${run.requiredCoverage}`);
  }
  if (run.state !== "OPEN" || run.failedAgentId !== null) {
    const after = run.failedAgentId === null ? "" : " after a failed claim";
    throw apiError(
      "INVALID_RUN_STATE",
      `run ${run.id} is ${run.state}${after}: a cover is set only while the run is OPEN and was never claimed`,
    );
  }
  if (run.coverPending && cover.amount !== run.requiredCoverage) {
    throw apiError(
      "COVER_MISMATCH",
      `the draft declares ${run.requiredCoverage} of cover (what agents read); the signed cover is ${cover.amount}`,
    );
  }
  if (cover.deadline < (await chainNow(deps))) {
    throw apiError("CONSENT_EXPIRED", `the cover signature expired at ${cover.deadline} (chain time)`);
  }
  const pool = deps.deployments.contracts.InsurancePool.address;
  const typed = runCoverTypedData({
    pool,
    chainId: deps.deployments.chainId,
    runId: run.onchainRunId,
    amount: cover.amount,
    deadline: cover.deadline,
  });
  const signature = cover.signature as Hex;
  if (!(await deps.chain.verifyTypedData({ address: run.poster as Address, signature, ...typed }))) {
    throw apiError(
      "INVALID_CONSENT",
      `the cover is not ${run.poster}'s signature of RunCover(${run.onchainRunId}, ${cover.amount}, ${cover.deadline}) for the InsurancePool at ${pool}`,
      { alt: true },
    );
  }
  return run.onchainRunId;
}

export async function setRunCover(deps: Deps, p: SetRunCoverParameters): Promise<SetRunCoverReturnType> {
  const draft = await getRun(deps, p.runId);
  const signer = await verifySignedBy(
    deps,
    p,
    { action: "set-run-cover", kind: "run", id: p.runId },
    [draft.poster],
    () => apiError("NOT_RUN_POSTER", `only the run's poster ${draft.poster} may set its cover`),
  );
  // Under the run's lease: a claim through the API cannot slip between these checks and the cover.
  const relayed = await withRunLock(deps, p.runId, async () => {
    const onchainRunId = await checkCover(deps, await getRun(deps, p.runId), p.cover);
    const result = await relayMapped(
      deps,
      "InsurancePool",
      InsurancePoolAbi,
      "setRunCoverBySig",
      [onchainRunId, p.cover.amount, p.cover.deadline, p.cover.signature as Hex],
      `run-cover:${p.cover.signature.toLowerCase()}`,
      REVERTS,
    );
    await recordAction(deps, {
      runId: p.runId,
      action: "set-run-cover",
      signer,
      txHash: result.txHash,
      detail: { amount: p.cover.amount.toString() },
    });
    return { txHash: result.txHash, onchainRunId };
  });
  await waitForIndexer(
    `run ${p.runId}'s cover`,
    async () => ((await indexedRunCover(deps, relayed.onchainRunId)) > 0n ? true : undefined),
    deps.env.INDEXER_WAIT_MS,
  );
  return { run: await getRun(deps, p.runId), txHash: relayed.txHash };
}

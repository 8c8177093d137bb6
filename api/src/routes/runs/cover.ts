// A run's cover: the agreed damages insurance pays its poster if the agent times out or loses a dispute (never the
// deposit, which the escrow refunds). The poster declares it in the draft (requiredCoverage) and, once the run is
// funded and before anyone claims it, sets it in the InsurancePool with an EIP-712 RunCover signature the relayer
// submits (setRunCoverBySig; the pool verifies it, ERC-1271 included). See docs/decisions.md, "Insurance pays agreed
// damages, once per run".
import { InsurancePoolAbi } from "@agenthub/common/generated/abis";
import { runCoverTypedData } from "@agenthub/sdk/protocol";
import { createRoute } from "@hono/zod-openapi";
import { type Address, type Hex, isAddressEqual } from "viem";
import { ApiError, errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { type RevertCodes, relayMapped } from "../../lib/relay-mapped.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import { waitForIndexer } from "../../lib/wait.ts";
import { chainNow, recordAction, withRunLock } from "./escrow.ts";
import { getRun, indexedRunCover } from "./repository.ts";
import { coverBody, runActionResult, runIdParam } from "./schemas.ts";
import { toRunDetail } from "./views.ts";

/** Pool reverts the checks below did not foresee (a direct setRunCover or claim racing this request). */
const REVERTS: RevertCodes = {
  InsurancePoolCoverAlreadySet: { status: 409, code: "COVER_ALREADY_SET" },
  InsurancePoolRunNotOpen: { status: 409, code: "INVALID_RUN_STATE" },
  InsurancePoolSignatureExpired: { status: 400, code: "CONSENT_EXPIRED" },
  InsurancePoolInvalidSignature: { status: 403, code: "INVALID_CONSENT" },
};

const coverRoute = createRoute({
  method: "post",
  path: "/api/runs/{id}/cover",
  tags: ["runs"],
  summary:
    "The poster sets the run's cover (agreed damages insurance pays after a timeout or a lost dispute) in the InsurancePool: funded, OPEN and never claimed, once; the draft's requiredCoverage when it declares one (signed action set-run-cover:run:<id> plus the EIP-712 RunCover)",
  request: { params: runIdParam, body: jsonBody(coverBody) },
  responses: { 200: json(runActionResult, "Cover set"), ...errorResponses(400, 401, 403, 404, 409, 504) },
});

export const coverRoutes = router().openapi(coverRoute, async (c) => {
  const deps = c.get("deps");
  const { id } = c.req.valid("param");
  const body = c.req.valid("json");
  const draft = await getRun(deps, id);
  const signer = await verifySignedAction(deps, body, { action: "set-run-cover", kind: "run", id });
  if (!isAddressEqual(signer, draft.poster as Address)) {
    throw errors.forbidden("NOT_RUN_POSTER", `only the run's poster ${draft.poster} may set its cover`);
  }
  const amount = BigInt(body.cover.amount);
  const deadline = BigInt(body.cover.deadline);
  const relayed = await withRunLock(deps, id, async () => {
    // Under the run's lock: a claim through the API cannot slip between these checks and the cover.
    const run = await getRun(deps, id);
    if (run.onchainRunId === null) {
      throw errors.conflict("INVALID_RUN_STATE", `run ${id} is not funded yet: fund it, then set its cover`);
    }
    if (run.requiredCoverage > 0n && !run.coverPending) {
      throw errors.conflict("COVER_ALREADY_SET", `run ${id}'s cover is already ${run.requiredCoverage}`);
    }
    if (run.state !== "OPEN" || run.failedAgentId !== null) {
      throw errors.conflict(
        "INVALID_RUN_STATE",
        `run ${id} is ${run.state}${run.failedAgentId === null ? "" : " after a failed claim"}: a cover is set only while the run is OPEN and was never claimed`,
      );
    }
    if (run.coverPending && amount !== run.requiredCoverage) {
      throw new ApiError(
        400,
        "COVER_MISMATCH",
        `the draft declares ${run.requiredCoverage} of cover (what agents read); the signed cover is ${amount}`,
      );
    }
    if (deadline < (await chainNow(deps))) {
      throw new ApiError(400, "CONSENT_EXPIRED", `the cover signature expired at ${deadline} (chain time)`);
    }
    const pool = deps.deployments.contracts.InsurancePool.address;
    const signature = body.cover.signature as Hex;
    const typed = runCoverTypedData({
      pool,
      chainId: deps.deployments.chainId,
      runId: run.onchainRunId,
      amount,
      deadline,
    });
    if (!(await deps.chain.verifyTypedData({ address: run.poster as Address, signature, ...typed }))) {
      throw errors.forbidden(
        "INVALID_CONSENT",
        `the cover is not ${run.poster}'s signature of RunCover(${run.onchainRunId}, ${amount}, ${deadline}) for the InsurancePool at ${pool}`,
      );
    }
    const result = await relayMapped(
      deps,
      "InsurancePool",
      InsurancePoolAbi,
      "setRunCoverBySig",
      [run.onchainRunId, amount, deadline, signature],
      `run-cover:${signature.toLowerCase()}`,
      REVERTS,
    );
    await recordAction(deps, {
      runId: id,
      action: "set-run-cover",
      signer,
      txHash: result.txHash,
      detail: { amount: amount.toString() },
    });
    return { ...result, onchainRunId: run.onchainRunId };
  });
  await waitForIndexer(
    `run ${id}'s cover`,
    async () => ((await indexedRunCover(deps, relayed.onchainRunId)) > 0n ? true : undefined),
    deps.env.INDEXER_WAIT_MS,
  );
  const run = await getRun(deps, id);
  return c.json(
    {
      success: true,
      run: await toRunDetail(deps, run),
      txHash: relayed.txHash,
      message: `Run ${id} requires ${amount} USDC base units of insurance coverage to claim; if the agent times out or loses a dispute you may claim that much (less the stake slashed to you) once, from its coverage.`,
    },
    200,
  );
});

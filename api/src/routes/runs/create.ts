// Creating (DRAFT, off chain) and funding (RunEscrow.createRunWithAuthorization through the relayer with the
// poster's terms-bound EIP-3009 authorization, or a direct createRun transaction the poster sent) a run.
import { RunEscrowAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { createRoute } from "@hono/zod-openapi";
import { type Address, getAddress, type Hex, isAddressEqual, parseEventLogs } from "viem";
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { ApiError, errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { currentFeeBps } from "../../lib/protocol.ts";
import { checkFundingAuthorization } from "../../lib/run-funding.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { verifySignedAction } from "../../lib/signed-action.ts";
import { recordBountyCreated } from "../../webhooks/bounty-events.ts";
import { chainNow, recordAction, relayEscrow, waitForRunTx, withRunLock } from "./escrow.ts";
import { getRun, type RunRecord } from "./repository.ts";
import { createBody, fundBody, runActionResult, runIdParam } from "./schemas.ts";
import { feeOf } from "./state.ts";
import { toRunDetail } from "./views.ts";

/** Longest accepted deadline: five years ahead. */
const MAX_DEADLINE_SECONDS = 5n * 365n * 24n * 3600n;

const createRunRoute = createRoute({
  method: "post",
  path: "/",
  tags: ["runs"],
  summary: "Create a DRAFT run; the request JSON is stored under its CID (signed by the poster: create-run:run:new)",
  request: { body: jsonBody(createBody) },
  responses: { 201: json(runActionResult, "Draft created"), ...errorResponses(400, 401, 403) },
});

const fundRoute = createRoute({
  method: "post",
  path: "/{id}/fund",
  tags: ["runs"],
  summary:
    "Fund a DRAFT: the relayer submits createRunWithAuthorization with the poster's EIP-3009 authorization of reward + fee bound to the run's terms, or a direct createRun txHash is verified -> OPEN",
  request: { params: runIdParam, body: jsonBody(fundBody) },
  responses: { 200: json(runActionResult, "Funded"), ...errorResponses(400, 401, 403, 404, 409, 504) },
});

const notPoster = (run: { poster: string }) =>
  errors.forbidden("NOT_RUN_POSTER", `only the run's poster ${run.poster} may do this`);

interface Funding {
  onchainRunId: bigint;
  txHash: Hex;
  logs: { address: Address; topics: Hex[]; data: Hex; logIndex: number }[];
}

type RunCreatedArgs = { runId: bigint; poster: Address; reward: bigint; metadataUri: string };

function runCreatedFor(deps: Deps, logs: Funding["logs"], run: RunRecord): RunCreatedArgs[] {
  const escrow = deps.deployments.contracts.RunEscrow.address;
  return parseEventLogs({
    abi: RunEscrowAbi,
    logs: logs.filter((l) => isAddressEqual(l.address, escrow)) as never,
    eventName: "RunCreated",
  })
    .map((l) => l.args as RunCreatedArgs)
    .filter((a) => a.metadataUri === run.requestUri);
}

async function fundWithAuthorization(
  deps: Deps,
  run: RunRecord,
  authorization: { validBefore: number; signature: string },
): Promise<Funding> {
  const now = await chainNow(deps);
  if (run.deadline <= now) throw new ApiError(400, "DEADLINE_PASSED", `run ${run.id}'s deadline has passed`);
  const amount = run.reward + run.fee;
  const poster = getAddress(run.poster);
  const terms = {
    poster,
    reward: run.reward,
    deadline: run.deadline,
    maxRevisions: run.maxRevisions,
    metadataUri: run.requestUri,
  };
  const auth = { validBefore: BigInt(authorization.validBefore), signature: authorization.signature as Hex };
  const { used } = await checkFundingAuthorization(deps, terms, amount, auth, now);
  if (!used) {
    const balance = await deps.chain.readContract({
      address: deps.deployments.usdc.address,
      abi: TestUSDCAbi,
      functionName: "balanceOf",
      args: [poster],
    });
    if (balance < amount) {
      throw new ApiError(
        400,
        "INSUFFICIENT_BALANCE",
        `the poster holds ${balance} USDC base units; funding needs ${amount}`,
      );
    }
  }
  // One relayed funding per draft, ever: a retried or concurrent request gets the same transaction (an
  // authorization already used is answered from that record, or refused by the token: AUTHORIZATION_USED).
  const result = await relayEscrow(
    deps,
    "createRunWithAuthorization",
    [poster, run.reward, run.deadline, run.maxRevisions, run.requestUri, auth.validBefore, auth.signature],
    { idempotencyKey: `run-fund:${run.id}` },
  );
  const created = runCreatedFor(deps, result.logs, run)[0];
  if (!created) throw new Error(`funding transaction ${result.txHash} has no RunCreated for run ${run.id}`);
  return { onchainRunId: created.runId, txHash: result.txHash, logs: result.logs };
}

async function fundFromTx(deps: Deps, run: RunRecord, hash: Hex): Promise<Funding> {
  const receipt = await deps.chain.getTransactionReceipt({ hash }).catch(() => undefined);
  if (!receipt) throw new ApiError(400, "TX_NOT_FOUND", `no confirmed transaction ${hash}`);
  if (receipt.status !== "success") throw new ApiError(400, "TX_FAILED", `transaction ${hash} reverted`);
  const logs = receipt.logs.map((l) => ({
    address: l.address,
    topics: l.topics as Hex[],
    data: l.data,
    logIndex: l.logIndex,
  }));
  const created = runCreatedFor(deps, logs, run)[0];
  if (!created) {
    throw new ApiError(400, "FUNDING_MISMATCH", `transaction ${hash} creates no escrow run for ${run.requestUri}`);
  }
  if (!isAddressEqual(created.poster, run.poster as Address) || created.reward !== run.reward) {
    throw new ApiError(
      400,
      "FUNDING_MISMATCH",
      `the escrow run in ${hash} has poster ${created.poster} and reward ${created.reward}; the draft has ${run.poster} and ${run.reward}`,
    );
  }
  return { onchainRunId: created.runId, txHash: hash, logs };
}

export const createRoutes = router()
  .openapi(createRunRoute, async (c) => {
    const deps = c.get("deps");
    const { message, signature, ...body } = c.req.valid("json");
    const deadline = BigInt(Math.floor(Date.parse(body.deadline) / 1000));
    const now = await chainNow(deps);
    if (deadline <= now) throw new ApiError(400, "DEADLINE_PASSED", "the deadline must be in the future");
    if (deadline > now + MAX_DEADLINE_SECONDS) throw errors.validation("deadline: at most five years ahead");
    const signer = await verifySignedAction(
      deps,
      { message, signature },
      { action: "create-run", kind: "run", id: "new" },
    );
    if (!isAddressEqual(signer, body.posterAddress as Address)) {
      throw errors.forbidden("NOT_RUN_POSTER", "the message must be signed by posterAddress");
    }
    const poster = getAddress(body.posterAddress);
    const reward = BigInt(body.reward);
    const id = Number((await deps.pool.query<{ id: string }>("select nextval('api.run_id_seq')::text id")).rows[0]!.id);
    const createdAt = new Date();
    // The request document: what an agent reads before claiming. Its CID is the on-chain metadataUri.
    const stored = await deps.ipfs.putJson({
      type: "agenthub.run-request.v1",
      bountyId: id,
      chainId: deps.deployments.chainId,
      escrow: deps.deployments.contracts.RunEscrow.address,
      poster,
      title: body.title,
      description: body.description,
      reward: reward.toString(),
      fee: feeOf(reward, await currentFeeBps(deps)).toString(),
      currency: "USDC",
      deadline: new Date(Number(deadline) * 1000).toISOString(),
      maxRevisions: body.maxRevisions,
      createdAt: createdAt.toISOString(),
    });
    await deps.pool.query(
      `insert into api.run (id, poster_address, title, description, reward, deadline, max_revisions, request_cid, created_at)
       values ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
      [
        id,
        poster,
        body.title,
        body.description,
        reward.toString(),
        deadline.toString(),
        body.maxRevisions,
        stored.cid,
        createdAt,
      ],
    );
    await recordAction(deps, { runId: id, action: "create-run", signer: poster, txHash: null });
    const run = await getRun(deps, id);
    return c.json(
      {
        success: true,
        run: await toRunDetail(deps, run),
        txHash: null,
        message: `Draft stored at ${stored.uri}. Fund it with POST /api/runs/${id}/fund (an EIP-3009 authorization of ${run.reward + run.fee} base units, reward + platform fee, bound to this run's terms).`,
      },
      201,
    );
  })
  .openapi(fundRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const draft = await getRun(deps, id);
    const signer = await verifySignedAction(deps, body, { action: "fund-run", kind: "run", id });
    if (!isAddressEqual(signer, draft.poster as Address)) throw notPoster(draft);
    const funding = await withRunLock(deps, id, async () => {
      const run = await getRun(deps, id);
      if (run.onchainRunId !== null) throw errors.conflict("RUN_ALREADY_FUNDED", `run ${id} is already funded`);
      const funded = body.authorization
        ? await fundWithAuthorization(deps, run, body.authorization)
        : await fundFromTx(deps, run, body.txHash as Hex);
      try {
        await withTransaction(deps.pool, async (client) => {
          const updated = await client.query(
            `update api.run set onchain_run_id = $2, funding_tx = $3, funded_at = now() where id = $1 and onchain_run_id is null`,
            [id, funded.onchainRunId.toString(), funded.txHash.toLowerCase()],
          );
          if (updated.rowCount !== 1) throw errors.conflict("RUN_ALREADY_FUNDED", `run ${id} is already funded`);
          // The run is on chain and OPEN: bounty.created for the organizations of the poster's agents.
          await recordBountyCreated(client, deps.views.names.agent, run, funded.txHash);
        });
      } catch (error) {
        if ((error as { code?: string }).code === "23505") {
          throw new ApiError(400, "TX_ALREADY_USED", `the escrow run in ${funded.txHash} already funds another run`);
        }
        throw error;
      }
      await recordAction(deps, { runId: id, action: "fund-run", signer, txHash: funded.txHash });
      return funded;
    });
    await waitForRunTx(deps, funding);
    const run = await getRun(deps, id);
    return c.json(
      {
        success: true,
        run: await toRunDetail(deps, run),
        txHash: funding.txHash,
        message: `Run ${id} is OPEN: ${run.reward + run.fee} USDC base units are held by the escrow (on-chain run ${funding.onchainRunId}).`,
      },
      200,
    );
  });

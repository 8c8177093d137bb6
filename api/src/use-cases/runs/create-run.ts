// A DRAFT run (off chain): the poster signs create-run:run:new; the request document is stored under its CID, which
// becomes the on-chain metadataUri when the run is funded.
import { type Address, getAddress } from "viem";
import type { Deps } from "../../context.ts";
import { feeOf } from "../../domain/run-state.ts";
import { apiError, errors } from "../../errors.ts";
import { currentFeeBps } from "../../lib/protocol.ts";
import { insertDraft, nextRunId, type RunRecord, recordAction } from "../../stores/runs.ts";
import { verifySignedBy } from "../guards.ts";
import { chainNow } from "./escrow.ts";
import { getRun } from "./get-run.ts";

/** Longest accepted deadline: five years ahead. */
const MAX_DEADLINE_SECONDS = 5n * 365n * 24n * 3600n;

export interface CreateRunParameters {
  posterAddress: Address;
  title: string;
  description: string;
  /** USDC base units */
  reward: bigint;
  /** ISO 8601 */
  deadline: string;
  maxRevisions: number;
  /**
   * Agreed damages (USDC base units) insurance pays after a timeout or a lost dispute: a term of the run the funding
   * fixes on chain, at most RunEscrow.maxCoverBps of the reward.
   */
  requiredCoverage?: bigint;
  message: string;
  signature: string;
}

export interface CreateRunReturnType {
  run: RunRecord;
  requestUri: string;
}

/** 400 COVER_TOO_HIGH above the escrow's bound now (funding checks it again on chain, against the bound then). */
async function checkCover(deps: Deps, reward: bigint, cover: bigint): Promise<void> {
  const bps = (await deps.params.current()).maxCoverBps;
  const maximum = (reward * bps) / 10_000n;
  if (cover > maximum) {
    throw apiError(
      "COVER_TOO_HIGH",
      `requiredCoverage ${cover} is above ${maximum}: the escrow bounds a run's cover at ${bps} basis points of its reward`,
    );
  }
}

export async function createRun(deps: Deps, p: CreateRunParameters): Promise<CreateRunReturnType> {
  const deadline = BigInt(Math.floor(Date.parse(p.deadline) / 1000));
  const now = await chainNow(deps);
  if (deadline <= now) throw apiError("DEADLINE_PASSED", "the deadline must be in the future");
  if (deadline > now + MAX_DEADLINE_SECONDS) throw errors.validation("deadline: at most five years ahead");
  await verifySignedBy(deps, p, { action: "create-run", kind: "run", id: "new" }, [p.posterAddress], () =>
    apiError("NOT_RUN_POSTER", "the message must be signed by posterAddress"),
  );
  if (p.requiredCoverage !== undefined) await checkCover(deps, p.reward, p.requiredCoverage);
  const poster = getAddress(p.posterAddress);
  const id = await nextRunId(deps);
  const createdAt = new Date();
  // The request document: what an agent reads before claiming. Its CID is the on-chain metadataUri.
  const stored = await deps.ipfs.putJson({
    type: "agenthub.run-request.v1",
    bountyId: id,
    chainId: deps.deployments.chainId,
    escrow: deps.deployments.contracts.RunEscrow.address,
    poster,
    title: p.title,
    description: p.description,
    reward: p.reward.toString(),
    fee: feeOf(p.reward, await currentFeeBps(deps)).toString(),
    currency: "USDC",
    deadline: new Date(Number(deadline) * 1000).toISOString(),
    maxRevisions: p.maxRevisions,
    // Agreed damages if the agent times out or loses a dispute: part of the terms the funding authorization binds.
    ...(p.requiredCoverage === undefined ? {} : { requiredCoverage: p.requiredCoverage.toString() }),
    createdAt: createdAt.toISOString(),
  });
  await insertDraft(deps, {
    id,
    poster,
    title: p.title,
    description: p.description,
    reward: p.reward,
    deadline,
    maxRevisions: p.maxRevisions,
    requestCid: stored.cid,
    declaredCoverage: p.requiredCoverage ?? null,
    createdAt,
  });
  await recordAction(deps, { runId: id, action: "create-run", signer: poster, txHash: null });
  return { run: await getRun(deps, id), requestUri: stored.uri };
}

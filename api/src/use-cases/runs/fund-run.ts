// Funding a DRAFT: RunEscrow.createRunWithAuthorization through the relayer with the poster's terms-bound EIP-3009
// authorization, or a direct createRun transaction the poster sent (verified from its receipt) -> OPEN.
import { RunEscrowAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress, type Hex, isAddressEqual, parseEventLogs } from "viem";
import type { Deps } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { apiError } from "../../errors.ts";
import { confirmedReceipt } from "../../lib/deposit-tx.ts";
import { checkFundingAuthorization } from "../../lib/run-funding.ts";
import { recordBountyCreated } from "../../stores/run-orgs.ts";
import { markFunded, type RunRecord, recordAction, withRunLock } from "../../stores/runs.ts";
import { verifySignedBy } from "../guards.ts";
import { chainNow, relayEscrow, waitForRunTx } from "./escrow.ts";
import { getRun } from "./get-run.ts";

export interface FundRunParameters {
  runId: number;
  message: string;
  signature: string;
  /** The poster's EIP-3009 authorization of reward + fee (exactly one of authorization and txHash). */
  authorization?: { validBefore: number; signature: string };
  /** A createRun transaction the poster sent directly. */
  txHash?: string;
}

export interface FundRunReturnType {
  run: RunRecord;
  onchainRunId: bigint;
  txHash: Hex;
}

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

/** The cover the escrow fixed for `runId` in these logs (RunCoverSet; none: 0). */
function coverIn(deps: Deps, logs: Funding["logs"], runId: bigint): bigint {
  const escrow = deps.deployments.contracts.RunEscrow.address;
  const set = parseEventLogs({
    abi: RunEscrowAbi,
    logs: logs.filter((l) => isAddressEqual(l.address, escrow)) as never,
    eventName: "RunCoverSet",
  }).find((l) => l.args.runId === runId);
  return set?.args.amount ?? 0n;
}

async function fundWithAuthorization(
  deps: Deps,
  run: RunRecord,
  authorization: { validBefore: number; signature: string },
): Promise<Funding> {
  const now = await chainNow(deps);
  if (run.deadline <= now) throw apiError("DEADLINE_PASSED", `run ${run.id}'s deadline has passed`);
  const amount = run.reward + run.fee;
  const poster = getAddress(run.poster);
  const terms = {
    poster,
    reward: run.reward,
    deadline: run.deadline,
    maxRevisions: run.maxRevisions,
    cover: run.requiredCoverage,
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
      throw apiError("INSUFFICIENT_BALANCE", `the poster holds ${balance} USDC base units; funding needs ${amount}`);
    }
  }
  // One relayed funding per draft, ever: a retried or concurrent request gets the same transaction (an
  // authorization already used is answered from that record, or refused by the token: AUTHORIZATION_USED).
  const result = await relayEscrow(
    deps,
    "createRunWithAuthorization",
    [
      poster,
      run.reward,
      run.deadline,
      run.maxRevisions,
      run.requiredCoverage,
      run.requestUri,
      auth.validBefore,
      auth.signature,
    ],
    { idempotencyKey: `run-fund:${run.id}` },
  );
  const created = runCreatedFor(deps, result.logs, run)[0];
  if (!created) throw new Error(`funding transaction ${result.txHash} has no RunCreated for run ${run.id}`);
  return { onchainRunId: created.runId, txHash: result.txHash, logs: result.logs };
}

async function fundFromTx(deps: Deps, run: RunRecord, hash: Hex): Promise<Funding> {
  const receipt = await confirmedReceipt(deps, hash);
  const logs = receipt.logs.map((l) => ({
    address: l.address,
    topics: l.topics as Hex[],
    data: l.data,
    logIndex: l.logIndex,
  }));
  const created = runCreatedFor(deps, logs, run)[0];
  if (!created) {
    throw apiError("FUNDING_MISMATCH", `transaction ${hash} creates no escrow run for ${run.requestUri}`);
  }
  if (!isAddressEqual(created.poster, run.poster as Address) || created.reward !== run.reward) {
    throw apiError(
      "FUNDING_MISMATCH",
      `the escrow run in ${hash} has poster ${created.poster} and reward ${created.reward}; the draft has ${run.poster} and ${run.reward}`,
    );
  }
  const cover = coverIn(deps, logs, created.runId);
  if (cover !== run.requiredCoverage) {
    throw apiError(
      "FUNDING_MISMATCH",
      `the escrow run in ${hash} has a cover of ${cover}; the draft declares ${run.requiredCoverage}`,
    );
  }
  return { onchainRunId: created.runId, txHash: hash, logs };
}

export async function fundRun(deps: Deps, p: FundRunParameters): Promise<FundRunReturnType> {
  const id = p.runId;
  const draft = await getRun(deps, id);
  const signer = await verifySignedBy(deps, p, { action: "fund-run", kind: "run", id }, [draft.poster], () =>
    apiError("NOT_RUN_POSTER", `only the run's poster ${draft.poster} may do this`),
  );
  const funding = await withRunLock(deps, id, async () => {
    const run = await getRun(deps, id);
    if (run.onchainRunId !== null) throw apiError("RUN_ALREADY_FUNDED", `run ${id} is already funded`);
    const funded = p.authorization
      ? await fundWithAuthorization(deps, run, p.authorization)
      : await fundFromTx(deps, run, p.txHash as Hex);
    await withTransaction(deps.pool, async (client) => {
      const marked = await markFunded(client, id, funded.onchainRunId, funded.txHash);
      if (marked === "tx-used") {
        throw apiError("TX_ALREADY_USED", `the escrow run in ${funded.txHash} already funds another run`);
      }
      if (marked === "already-funded") throw apiError("RUN_ALREADY_FUNDED", `run ${id} is already funded`);
      // The run is on chain and OPEN: bounty.created for the organizations of the poster's agents.
      await recordBountyCreated(client, deps.views.names.agent, run, funded.txHash);
    });
    await recordAction(deps, { runId: id, action: "fund-run", signer, txHash: funded.txHash });
    return funded;
  });
  await waitForRunTx(deps, funding);
  return { run: await getRun(deps, id), onchainRunId: funding.onchainRunId, txHash: funding.txHash };
}

import type { z } from "@hono/zod-openapi";
import { CID } from "multiformats/cid";
import * as raw from "multiformats/codecs/raw";
import { create as createDigest } from "multiformats/hashes/digest";
import { sha256 } from "multiformats/hashes/sha2";
import type { Deps } from "../../context.ts";
import { apiState } from "../../domain/run-state.ts";
import { isoFromSeconds } from "../../lib/time.ts";
import type { RunEventRecord, RunListEntry, RunRecord } from "../../stores/runs.ts";
import type { runDetail, runEvent, runListItem } from "./schemas.ts";

export function toRunListItem(run: RunListEntry): z.infer<typeof runListItem> {
  return {
    bountyId: run.id,
    onchainRunId: run.onchainRunId?.toString() ?? null,
    posterAddress: run.poster,
    title: run.title,
    ipfsHash: run.requestUri,
    reward: run.reward.toString(),
    fee: run.fee.toString(),
    deadline: isoFromSeconds(run.deadline),
    state: run.state,
    claimedBy: run.agentId,
    revisions: run.revisions,
    maxRevisions: run.maxRevisions,
    requiredCoverage: run.requiredCoverage.toString(),
    coverPending: run.coverPending,
    createdAt: run.createdAt.toISOString(),
  };
}

/** The CID (raw codec, sha2-256) whose digest is `hash`: what the API stores a submitted deliverable under. */
export function deliverableCid(hash: string): string {
  const bytes = Buffer.from(hash.slice(2), "hex");
  return CID.createV1(raw.code, createDigest(sha256.code, bytes)).toString();
}

export async function toRunDetail(deps: Pick<Deps, "ipfs">, run: RunRecord): Promise<z.infer<typeof runDetail>> {
  let deliverableUri: string | null = null;
  if (run.deliverableHash) {
    const cid = deliverableCid(run.deliverableHash);
    if (await deps.ipfs.has(cid)) deliverableUri = `ipfs://${cid}`;
  }
  return {
    ...toRunListItem(run),
    description: run.description,
    claimedByWallet: run.claimedByWallet,
    stake: run.agentStake?.toString() ?? null,
    deliverableHash: run.deliverableHash,
    deliverableUri,
    claimedAt: run.claimedAt === null ? null : isoFromSeconds(run.claimedAt),
    submittedAt: run.submittedAt === null ? null : isoFromSeconds(run.submittedAt),
    failedAgentId: run.failedAgentId,
    fundingTx: run.fundingTx,
  };
}

export function toRunEvents(run: RunRecord, events: RunEventRecord[]): z.infer<typeof runEvent>[] {
  const drafted: z.infer<typeof runEvent> = {
    kind: "DRAFTED",
    state: "DRAFT",
    actor: run.poster,
    sender: null,
    agentId: null,
    amount: null,
    txHash: null,
    blockNumber: null,
    timestamp: run.createdAt.toISOString(),
    note: null,
  };
  return [
    drafted,
    ...events.map((e) => {
      const detail = e.detail ?? {};
      const note = ["feedback", "reason", "note"].map((k) => detail[k]).find((v) => typeof v === "string") as
        | string
        | undefined;
      return {
        kind: e.kind,
        state: apiState(e.contractState, true),
        actor: e.signer ?? e.sender,
        sender: e.sender,
        agentId: e.agentId,
        amount: e.amount,
        txHash: e.txHash,
        blockNumber: e.blockNumber,
        timestamp: isoFromSeconds(e.timestamp),
        note: note ?? null,
      };
    }),
  ];
}

// The inputs of an agent's stored score as a content-addressed document (GET /api/reputation/{id}/inputs).
import type { Deps } from "../../context.ts";
import { fromStoredInputs } from "../../domain/reputation.ts";
import { type ReputationInputsDocument, reputationInputsDocument } from "../../domain/reputation-inputs.ts";
import { getReputation } from "./get-reputation.ts";

export interface ReputationInputsParameters {
  agentId: number;
}

export interface ReputationInputsReturnType {
  cid: string;
  uri: string;
  document: ReputationInputsDocument;
}

/** 404 AGENT_NOT_FOUND for an unknown agent. Publishing is idempotent: the same inputs give the same CID. */
export async function reputationInputs(
  deps: Deps,
  { agentId }: ReputationInputsParameters,
): Promise<ReputationInputsReturnType> {
  const reputation = await getReputation(deps, { agentId });
  const document = reputationInputsDocument(
    agentId,
    reputation.score,
    fromStoredInputs(reputation.components as never),
  );
  const { cid, uri } = await deps.ipfs.putJson(document);
  return { cid, uri, document };
}

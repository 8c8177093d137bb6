// The attestations an agent received (with each attestor's wallet and reputation) and gave, newest first.
import type { Deps } from "../../context.ts";
import { attestationsOf } from "../../stores/attestations.ts";
import { requireAgentFacts } from "../guards.ts";
import { type AttestationView, toAttestationView } from "./attestation-view.ts";

/** A party of an attestation: the agent and its wallet. */
export interface AgentRef {
  id: number;
  walletAddress: string;
}

export interface ListAttestationsReturnType {
  agentId: number;
  received: (AttestationView & { attestor: AgentRef & { reputation: number } })[];
  given: (AttestationView & { subject: AgentRef })[];
}

export async function listAttestations(
  deps: Deps,
  { agentId }: { agentId: number },
): Promise<ListAttestationsReturnType> {
  await requireAgentFacts(deps, agentId);
  const { received, given } = await attestationsOf(deps, agentId);
  return {
    agentId,
    received: received.map((r) => ({
      ...toAttestationView(r),
      attestor: { id: Number(r.attestor_id), walletAddress: r.wallet, reputation: r.score ?? 50 },
    })),
    given: given.map((r) => ({
      ...toAttestationView(r),
      subject: { id: Number(r.subject_id), walletAddress: r.wallet },
    })),
  };
}

// One attestation with both parties and the attestor's reputation then (its weight) and now, or 404.
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { findAttestation } from "../../stores/attestations.ts";
import { type AttestationView, toAttestationView } from "./attestation-view.ts";
import type { AgentRef } from "./list-attestations.ts";

export interface GetAttestationReturnType {
  attestation: AttestationView & {
    /** The attestor's reputation the weight was taken from. */
    attestorScore: number;
    attestor: AgentRef & { reputation: number };
    subject: AgentRef;
  };
}

export async function getAttestation(deps: Deps, { id }: { id: number }): Promise<GetAttestationReturnType> {
  const r = await findAttestation(deps, id);
  if (!r) throw apiError("ATTESTATION_NOT_FOUND", `attestation ${id} does not exist`);
  return {
    attestation: {
      ...toAttestationView(r),
      attestorScore: r.attestor_score,
      attestor: { id: Number(r.attestor_id), walletAddress: r.attestor_wallet, reputation: r.attestor_current ?? 50 },
      subject: { id: Number(r.subject_id), walletAddress: r.subject_wallet },
    },
  };
}

// An attestation as the API shows it.
import type { AttestationCategory } from "../../domain/reputation.ts";
import type { AttestationRow } from "../../stores/attestations.ts";

export interface AttestationView {
  id: number;
  attestorId: number;
  subjectId: number;
  category: AttestationCategory;
  rating: number;
  comment: string | null;
  weight: number;
  createdAt: string;
}

export const toAttestationView = (r: AttestationRow): AttestationView => ({
  id: Number(r.id),
  attestorId: Number(r.attestor_id),
  subjectId: Number(r.subject_id),
  category: r.category,
  rating: r.rating,
  comment: r.comment,
  weight: r.weight,
  createdAt: r.created_at.toISOString(),
});

// A paid attestation (spec §4): the payer speaks for the attestor (its wallet or its token's owner), never for the
// subject too; the weight comes from the attestor's reputation now. Each broken rule has its own 4xx code (the
// payment is then given back by requirePayment).
import type { Deps } from "../../context.ts";
import { ATTESTATION_CATEGORIES, attestationWeight } from "../../domain/reputation.ts";
import { apiError } from "../../errors.ts";
import { agentControllers } from "../../lib/deposit-tx.ts";
import { type AttestationRow, attestationParty, findBoughtWith, insertAttestation } from "../../stores/attestations.ts";
import { recomputeAgent, recomputeSoon } from "../../stores/reputation-recompute.ts";

export interface CreateAttestationParameters {
  payer: string;
  paymentNonce: string;
  attestorId: number;
  subjectId: number;
  category: string;
  rating: number;
  comment?: string;
}

export type CreateAttestationReturnType = AttestationRow;

export async function createAttestation(
  deps: Deps,
  p: CreateAttestationParameters,
): Promise<CreateAttestationReturnType> {
  const bought = await findBoughtWith(deps, p.payer, p.paymentNonce);
  if (
    bought &&
    Number(bought.attestor_id) === p.attestorId &&
    Number(bought.subject_id) === p.subjectId &&
    bought.category === p.category
  ) {
    return bought;
  }
  if (!(ATTESTATION_CATEGORIES as readonly string[]).includes(p.category)) {
    throw apiError("INVALID_CATEGORY", `category must be one of ${ATTESTATION_CATEGORIES.join(", ")}`);
  }
  if (!Number.isInteger(p.rating) || p.rating < 1 || p.rating > 5) {
    throw apiError("INVALID_RATING", "rating must be an integer from 1 to 5");
  }
  if (p.attestorId === p.subjectId) throw apiError("SELF_ATTESTATION", "an agent cannot attest itself");
  const [attestor, subject] = await Promise.all([
    attestationParty(deps, p.attestorId),
    attestationParty(deps, p.subjectId),
  ]);
  if (!attestor) throw apiError("AGENT_NOT_FOUND", `attestor agent ${p.attestorId} does not exist`);
  if (!subject) throw apiError("AGENT_NOT_FOUND", `subject agent ${p.subjectId} does not exist`);
  const speaksFor = agentControllers(attestor).map((a) => a.toLowerCase());
  if (!speaksFor.includes(p.payer.toLowerCase())) {
    throw apiError(
      "ATTESTOR_NOT_AUTHORIZED",
      `the payer ${p.payer} is neither the wallet nor the owner of attestor agent ${p.attestorId}`,
    );
  }
  const subjectControllers = new Set([subject.wallet, subject.owner].map((a) => a.toLowerCase()));
  // Same party: any address that ever controlled both (an unbound wallet's key is still held by someone).
  if ([attestor.wallet, attestor.owner].some((a) => subjectControllers.has(a.toLowerCase()))) {
    throw apiError(
      "SAME_OWNER_ATTESTATION",
      "attestor and subject are controlled by the same wallet; attestations must come from another party",
    );
  }
  // The weight comes from the attestor's reputation now (computed first if it never was).
  const attestorScore = attestor.score ?? (await recomputeAgent(deps, p.attestorId, "read"))?.score ?? 50;
  const row = await insertAttestation(deps, {
    attestorId: p.attestorId,
    subjectId: p.subjectId,
    category: p.category,
    rating: p.rating,
    comment: p.comment ?? null,
    weight: attestationWeight(attestorScore),
    attestorScore,
    payer: p.payer,
    paymentNonce: p.paymentNonce,
    at: await deps.clock.now(),
  });
  if (!row) {
    throw apiError(
      "ATTESTATION_EXISTS",
      `agent ${p.attestorId} already attested agent ${p.subjectId} for ${p.category}`,
    );
  }
  await recomputeSoon(deps, [p.subjectId], "attestation");
  return row;
}

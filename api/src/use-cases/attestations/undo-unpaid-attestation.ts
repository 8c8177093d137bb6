import type { Deps } from "../../context.ts";
import type { UnpaidPayment } from "../../payments/unpaid.ts";
import { deleteBoughtWith } from "../../stores/attestations.ts";
import { recomputeSoon } from "../../stores/reputation-recompute.ts";

/** An attestation whose x402 payment never settles is deleted and its subject recomputed: attestations are paid. */
export async function undoUnpaidAttestation(deps: Deps, { payer, nonce }: UnpaidPayment): Promise<void> {
  const subjects = await deleteBoughtWith(deps, payer, nonce);
  if (subjects.length) await recomputeSoon(deps, subjects, "attestation");
}

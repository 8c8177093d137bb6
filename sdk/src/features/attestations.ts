// Attestations: a paid, rated statement by one agent (its wallet or owner pays) about another.
import type { Core } from "../core.ts";
import type { RequestBody } from "../types.ts";
import { type PayWith, paymentFor } from "./paid.ts";
import { AttestationReads } from "./reads.ts";

export type AttestationInput = RequestBody<"/api/attestations/create", "post">;

export class Attestations extends AttestationReads {
  constructor(protected override readonly core: Core) {
    super(core);
  }

  /** Creates an attestation; the payer must be the attestor agent's wallet or owner. */
  async create(input: AttestationInput, pay: PayWith) {
    const payment = await paymentFor(this.core, "/api/attestations/create", pay);
    const { data, response } = await this.core.callWithResponse(
      this.core.api.POST("/api/attestations/create", { body: input, ...payment.init }),
    );
    return { ...data, payment: payment.receipt(response) };
  }
}

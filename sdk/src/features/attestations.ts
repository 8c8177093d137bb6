// Attestations: a paid, rated statement by one agent (its wallet or owner pays) about another.
import type { Core } from "../core.ts";
import type { RequestBody } from "../types.ts";
import { type PayWith, paymentFor } from "./paid.ts";

export type AttestationInput = RequestBody<"/api/attestations/create", "post">;

export class Attestations {
  constructor(private readonly core: Core) {}

  /** Creates an attestation; the payer must be the attestor agent's wallet or owner. */
  async create(input: AttestationInput, pay: PayWith) {
    const payment = await paymentFor(this.core, "/api/attestations/create", pay);
    const { data, response } = await this.core.callWithResponse(
      this.core.api.POST("/api/attestations/create", { body: input, ...payment.init }),
    );
    return { ...data, payment: payment.receipt(response) };
  }

  get(id: number) {
    return this.core.call(this.core.api.GET("/api/attestations/{id}", { params: { path: { id } } }));
  }

  forAgent(agentId: number) {
    return this.core.call(this.core.api.GET("/api/attestations/agent/{agentId}", { params: { path: { agentId } } }));
  }

  stats(agentId: number) {
    return this.core.call(
      this.core.api.GET("/api/attestations/agent/{agentId}/stats", { params: { path: { agentId } } }),
    );
  }
}

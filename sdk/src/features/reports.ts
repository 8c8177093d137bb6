// Signed reports about agents (report:agent:<id>), the reporter's own list, counts and risk status.
import type { Core } from "../core.ts";
import { type SignerLike, toSigner } from "../signer.ts";
import type { RequestBody, Unsigned } from "../types.ts";

export class Reports {
  constructor(private readonly core: Core) {}

  async create(body: Unsigned<RequestBody<"/api/reports/create", "post">>, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "report", "agent", body.subjectAgentId);
    return this.core.call(this.core.api.POST("/api/reports/create", { body: { ...body, ...signed } }));
  }

  /** The signer's own reports (newest 100). */
  async mine(signer: SignerLike) {
    const { address } = toSigner(signer);
    const signed = await this.core.signAction(signer, "list-reports", "reporter", address);
    return this.core.call(this.core.api.GET("/api/reports/mine", { params: { query: signed } }));
  }

  count(agentId: number) {
    return this.core.call(this.core.api.GET("/api/reports/agent/{agentId}/count", { params: { path: { agentId } } }));
  }

  status(agentId: number) {
    return this.core.call(this.core.api.GET("/api/reports/agent/{agentId}/status", { params: { path: { agentId } } }));
  }

  /** Operator only (admin token): confirms or dismisses a pending report. */
  resolve(reportId: number, body: RequestBody<"/api/reports/{reportId}", "patch">) {
    return this.core.call(this.core.api.PATCH("/api/reports/{reportId}", { params: { path: { reportId } }, body }));
  }
}

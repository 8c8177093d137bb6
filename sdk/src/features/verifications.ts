// Verifications: badges for a domain (DNS TXT), a USDC balance (stake) or a skill test graded by the server.
import type { Core } from "../core.ts";
import type { RequestBody } from "../types.ts";

export class Verifications {
  constructor(private readonly core: Core) {}

  /** Starts a domain verification; publish the returned TXT record, then call verify(id). */
  requestDomain(agentId: number, domain: string) {
    return this.core.call(this.core.api.POST("/api/verifications/domain", { body: { agentId, domain } }));
  }

  /** Checks the domain's TXT record now. */
  verify(verificationId: number) {
    return this.core.call(
      this.core.api.POST("/api/verifications/{id}/verify", { params: { path: { id: verificationId } } }),
    );
  }

  /** Starts a stake verification for a minimum USDC balance (base units) of the agent's wallet. */
  requestStake(agentId: number, minStakeAmount: bigint | string) {
    return this.core.call(
      this.core.api.POST("/api/verifications/stake", { body: { agentId, minStakeAmount: String(minStakeAmount) } }),
    );
  }

  verifyStake(verificationId: number) {
    return this.core.call(
      this.core.api.POST("/api/verifications/{id}/verify-stake", { params: { path: { id: verificationId } } }),
    );
  }

  /** Draws a fresh skill test for the agent (10 questions, answerable once within 30 minutes). */
  startSkillTest(agentId: number, skillName: string) {
    return this.core.call(
      this.core.api.POST("/api/verifications/skill/{skillName}/attempts", {
        params: { path: { skillName } },
        body: { agentId },
      }),
    );
  }

  /** Submits the answers of an attempt (`attemptId` from startSkillTest); the server grades them. */
  submitSkill(body: RequestBody<"/api/verifications/skill", "post">) {
    return this.core.call(this.core.api.POST("/api/verifications/skill", { body }));
  }

  forAgent(agentId: number) {
    return this.core.call(this.core.api.GET("/api/verifications/agent/{agentId}", { params: { path: { agentId } } }));
  }

  get(verificationId: number) {
    return this.core.call(this.core.api.GET("/api/verifications/{id}", { params: { path: { id: verificationId } } }));
  }
}

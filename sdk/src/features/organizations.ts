// Organizations (white-label tenants): created with the operator's admin token; managed with the admin token or
// the organization's key + secret (AgentHubOptions.apiKey / apiSecret). Keys, members, domain, agents, reputation
// sharing and signed webhooks (verify deliveries with verifyWebhook from "@agenthub/sdk/webhooks").
import type { Core } from "../core.ts";
import type { Query, RequestBody } from "../types.ts";

export class Organizations {
  constructor(private readonly core: Core) {}

  /** Admin token only. The answer carries the live key, test key and secret once. */
  create(body: RequestBody<"/api/organizations", "post">) {
    return this.core.call(this.core.api.POST("/api/organizations", { body }));
  }

  get(orgId: string) {
    return this.core.call(this.core.api.GET("/api/organizations/{id}", { params: { path: { id: orgId } } }));
  }

  update(orgId: string, body: RequestBody<"/api/organizations/{id}", "patch">) {
    return this.core.call(this.core.api.PATCH("/api/organizations/{id}", { params: { path: { id: orgId } }, body }));
  }

  branding(orgId: string) {
    return this.core.call(this.core.api.GET("/api/organizations/{id}/branding", { params: { path: { id: orgId } } }));
  }

  /** Rotates the live key (default), the test key or the secret; the old value works 7 more days unless revoked. */
  rotateKey(orgId: string, body: RequestBody<"/api/organizations/{id}/rotate-key", "post"> = {}) {
    return this.core.call(
      this.core.api.POST("/api/organizations/{id}/rotate-key", { params: { path: { id: orgId } }, body }),
    );
  }

  stats(orgId: string) {
    return this.core.call(this.core.api.GET("/api/organizations/{id}/stats", { params: { path: { id: orgId } } }));
  }

  addMember(orgId: string, body: RequestBody<"/api/organizations/{id}/members", "post">) {
    return this.core.call(
      this.core.api.POST("/api/organizations/{id}/members", { params: { path: { id: orgId } }, body }),
    );
  }

  members(orgId: string) {
    return this.core.call(this.core.api.GET("/api/organizations/{id}/members", { params: { path: { id: orgId } } }));
  }

  removeMember(orgId: string, memberId: string) {
    return this.core.call(
      this.core.api.DELETE("/api/organizations/{id}/members/{memberId}", {
        params: { path: { id: orgId, memberId } },
      }),
    );
  }

  setDomain(orgId: string, domain: string) {
    return this.core.call(
      this.core.api.POST("/api/organizations/{id}/domain", { params: { path: { id: orgId } }, body: { domain } }),
    );
  }

  verifyDomain(orgId: string) {
    return this.core.call(
      this.core.api.POST("/api/organizations/{id}/domain/verify", { params: { path: { id: orgId } } }),
    );
  }

  registerAgent(orgId: string, body: RequestBody<"/api/organizations/{id}/agents", "post">) {
    return this.core.call(
      this.core.api.POST("/api/organizations/{id}/agents", { params: { path: { id: orgId } }, body }),
    );
  }

  searchAgents(orgId: string, query: Query<"/api/organizations/{id}/agents/search", "get"> = {}) {
    return this.core.call(
      this.core.api.GET("/api/organizations/{id}/agents/search", { params: { path: { id: orgId }, query } }),
    );
  }

  reputationSharing(orgId: string) {
    return this.core.call(
      this.core.api.GET("/api/organizations/{id}/reputation-sharing", { params: { path: { id: orgId } } }),
    );
  }

  setReputationSharing(orgId: string, body: RequestBody<"/api/organizations/{id}/reputation-sharing", "patch">) {
    return this.core.call(
      this.core.api.PATCH("/api/organizations/{id}/reputation-sharing", { params: { path: { id: orgId } }, body }),
    );
  }

  /** The answer carries the webhook's signing secret once (generated `whsec_…` unless you pass one). */
  createWebhook(orgId: string, body: RequestBody<"/api/organizations/{id}/webhooks", "post">) {
    return this.core.call(
      this.core.api.POST("/api/organizations/{id}/webhooks", { params: { path: { id: orgId } }, body }),
    );
  }

  webhooks(orgId: string) {
    return this.core.call(this.core.api.GET("/api/organizations/{id}/webhooks", { params: { path: { id: orgId } } }));
  }

  deleteWebhook(orgId: string, webhookId: string) {
    return this.core.call(
      this.core.api.DELETE("/api/organizations/{id}/webhooks/{webhookId}", {
        params: { path: { id: orgId, webhookId } },
      }),
    );
  }

  deliveries(
    orgId: string,
    webhookId: string,
    query: Query<"/api/organizations/{id}/webhooks/{webhookId}/deliveries", "get"> = {},
  ) {
    return this.core.call(
      this.core.api.GET("/api/organizations/{id}/webhooks/{webhookId}/deliveries", {
        params: { path: { id: orgId, webhookId }, query },
      }),
    );
  }
}

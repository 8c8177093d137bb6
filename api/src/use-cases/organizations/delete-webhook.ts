import type { Deps } from "../../context.ts";
import { deleteWebhook } from "../../stores/org-webhooks.ts";
import { getOrganization } from "./get-organization.ts";
import { webhookNotFound } from "./webhook-deliveries.ts";

/** Deletes a webhook of the organization; its pending deliveries are dropped. */
export async function removeWebhook(deps: Pick<Deps, "db">, p: { orgId: string; webhookId: string }): Promise<void> {
  await getOrganization(deps, { id: p.orgId });
  if (!(await deleteWebhook(deps, p.orgId, p.webhookId))) throw webhookNotFound(p.webhookId);
}

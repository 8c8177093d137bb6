import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { findWebhook, webhookDeliveries } from "../../stores/org-webhooks.ts";
import { getOrganization } from "./get-organization.ts";

export const webhookNotFound = (id: string) => apiError("WEBHOOK_NOT_FOUND", `webhook ${id} does not exist`);

/** The delivery log of one of the organization's webhooks, newest first. */
export async function listDeliveries(deps: Pick<Deps, "db">, p: { orgId: string; webhookId: string; limit: number }) {
  await getOrganization(deps, { id: p.orgId });
  if (!(await findWebhook(deps, p.orgId, p.webhookId))) throw webhookNotFound(p.webhookId);
  return webhookDeliveries(deps, p.webhookId, p.limit);
}

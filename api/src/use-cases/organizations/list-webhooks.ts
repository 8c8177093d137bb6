import type { Deps } from "../../context.ts";
import { listWebhooks } from "../../stores/org-webhooks.ts";
import { getOrganization } from "./get-organization.ts";

/** The organization's webhooks (404 for an unknown organization). */
export async function listOrgWebhooks(deps: Pick<Deps, "db">, { orgId }: { orgId: string }) {
  await getOrganization(deps, { id: orgId });
  return listWebhooks(deps, orgId);
}

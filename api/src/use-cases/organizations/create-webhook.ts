// Registering a webhook: the URL is checked now (no credentials; a literal address must be allowed; host names are
// resolved and checked on every delivery), the secret is the caller's or generated (shown once, stored encrypted),
// and the plan's webhook limit holds under a lock on the organization row.
import { isIP } from "node:net";
import type { Deps } from "../../context.ts";
import { createDb } from "../../db/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import { PLANS } from "../../domain/plans.ts";
import { apiError } from "../../errors.ts";
import { addressAllowed, classifyAddress } from "../../lib/net/ssrf.ts";
import { countWebhooks, insertWebhook, type WebhookRow } from "../../stores/org-webhooks.ts";
import { lockOrg } from "../../stores/organizations.ts";
import { allowPrivateWebhookTargets, encryptSecret } from "../../webhooks/dispatch.ts";
import { generateWebhookSecret, webhookSecretProblem } from "../../webhooks/signature.ts";
import { organizationNotFound } from "./get-organization.ts";
import { newId } from "./ids.ts";

export interface CreateWebhookParams {
  orgId: string;
  url: string;
  events: string[];
  secret?: string;
}

export async function createWebhook(
  deps: Deps,
  p: CreateWebhookParams,
): Promise<{ webhook: WebhookRow; secret: string }> {
  const url = new URL(p.url);
  if (url.username || url.password) {
    throw apiError("INVALID_WEBHOOK_URL", "the webhook URL must not carry credentials");
  }
  const host = url.hostname.replace(/^\[|\]$/g, "");
  if (isIP(host) && !addressAllowed(classifyAddress(host), allowPrivateWebhookTargets(deps))) {
    throw apiError("INVALID_WEBHOOK_URL", `webhooks cannot target ${host}`);
  }
  const secretProblem = p.secret === undefined ? null : webhookSecretProblem(p.secret);
  if (secretProblem) throw apiError("INVALID_WEBHOOK_SECRET", secretProblem);
  const secret = p.secret ?? generateWebhookSecret();
  const id = newId("wh");
  const webhook = await withTransaction(deps.pool, async (client) => {
    const tx = createDb(client);
    const plan = await lockOrg(tx, p.orgId);
    if (!plan) throw organizationNotFound(p.orgId);
    const limit = PLANS[plan].webhooks;
    if ((await countWebhooks(tx, p.orgId)) >= limit) {
      throw apiError("PLAN_LIMIT_REACHED", `the ${plan} plan allows ${limit} webhooks`);
    }
    return insertWebhook(tx, {
      id,
      orgId: p.orgId,
      url: url.href,
      events: p.events,
      secretEnc: encryptSecret(deps, id, secret),
    });
  });
  return { webhook, secret };
}

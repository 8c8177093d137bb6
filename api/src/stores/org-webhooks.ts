// Webhooks an organization registered (api.org_webhook) and their delivery log (api.webhook_delivery).
import { and, asc, count, desc, eq } from "drizzle-orm";
import type { Deps } from "../context.ts";
import type { Db } from "../db/index.ts";
import { orgEvent, orgWebhook, webhookDelivery } from "../db/schema/index.ts";

const columns = { id: orgWebhook.id, url: orgWebhook.url, events: orgWebhook.events, createdAt: orgWebhook.createdAt };
export type WebhookRow = { id: string; url: string; events: string[]; createdAt: Date };
type Reader = Pick<Deps, "db">;

export async function countWebhooks(tx: Db, orgId: string): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(orgWebhook).where(eq(orgWebhook.orgId, orgId));
  return row!.n;
}

export async function insertWebhook(
  tx: Db,
  w: { id: string; orgId: string; url: string; events: string[]; secretEnc: Buffer },
): Promise<WebhookRow> {
  const [row] = await tx.insert(orgWebhook).values(w).returning(columns);
  return row!;
}

export async function listWebhooks(deps: Reader, orgId: string): Promise<WebhookRow[]> {
  return deps.db
    .select(columns)
    .from(orgWebhook)
    .where(eq(orgWebhook.orgId, orgId))
    .orderBy(asc(orgWebhook.createdAt), asc(orgWebhook.id));
}

export async function findWebhook(deps: Reader, orgId: string, id: string): Promise<WebhookRow | null> {
  const [row] = await deps.db
    .select(columns)
    .from(orgWebhook)
    .where(and(eq(orgWebhook.id, id), eq(orgWebhook.orgId, orgId)));
  return row ?? null;
}

/** Deletes the webhook (its pending deliveries go with it); false when there was none. */
export async function deleteWebhook(deps: Reader, orgId: string, id: string): Promise<boolean> {
  const rows = await deps.db
    .delete(orgWebhook)
    .where(and(eq(orgWebhook.id, id), eq(orgWebhook.orgId, orgId)))
    .returning({ id: orgWebhook.id });
  return rows.length > 0;
}

/** The webhook's deliveries, newest first. */
export async function webhookDeliveries(deps: Reader, webhookId: string, limit: number) {
  return deps.db
    .select({
      id: webhookDelivery.id,
      eventId: webhookDelivery.eventId,
      event: orgEvent.event,
      status: webhookDelivery.status,
      attempts: webhookDelivery.attempts,
      lastStatusCode: webhookDelivery.lastStatusCode,
      lastError: webhookDelivery.lastError,
      lastAttemptAt: webhookDelivery.lastAttemptAt,
      nextAttemptAt: webhookDelivery.nextAttemptAt,
      deliveredAt: webhookDelivery.deliveredAt,
      createdAt: webhookDelivery.createdAt,
    })
    .from(webhookDelivery)
    .innerJoin(orgEvent, eq(orgEvent.id, webhookDelivery.eventId))
    .where(eq(webhookDelivery.webhookId, webhookId))
    .orderBy(desc(webhookDelivery.id))
    .limit(limit);
}

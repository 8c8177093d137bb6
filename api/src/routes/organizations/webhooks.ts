// Webhook management: register (url, events, optional secret; a secret is generated when missing and shown once),
// list, delete, and the delivery log of one webhook. Delivery itself: api/src/webhooks/dispatch.ts.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody, pageLimit } from "../../lib/schemas.ts";
import type { WebhookRow } from "../../stores/org-webhooks.ts";
import { createWebhook } from "../../use-cases/organizations/create-webhook.ts";
import { removeWebhook } from "../../use-cases/organizations/delete-webhook.ts";
import { listOrgWebhooks } from "../../use-cases/organizations/list-webhooks.ts";
import { listDeliveries } from "../../use-cases/organizations/webhook-deliveries.ts";
import { deliveryView, orgIdParam, orgItemParam, webhookBody, webhookView } from "./schemas.ts";

const tags = ["organizations"];
const webhookParam = orgItemParam("webhookId");

const createRoute_ = createRoute({
  method: "post",
  path: "/{id}/webhooks",
  tags,
  summary: "Register a webhook (the secret is generated when not given, and returned only now)",
  request: { params: orgIdParam, body: jsonBody(webhookBody) },
  responses: {
    201: json(webhookView.extend({ secret: z.string() }), "Webhook"),
    ...errorResponses(400, 401, 403, 404),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/{id}/webhooks",
  tags,
  request: { params: orgIdParam },
  responses: { 200: json(z.object({ webhooks: z.array(webhookView) }), "Webhooks"), ...errorResponses(401, 403, 404) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/{id}/webhooks/{webhookId}",
  tags,
  request: { params: webhookParam },
  responses: {
    200: json(z.object({ deleted: z.literal(true), id: z.string() }), "Deleted (pending deliveries are dropped)"),
    ...errorResponses(401, 403, 404),
  },
});

const deliveriesRoute = createRoute({
  method: "get",
  path: "/{id}/webhooks/{webhookId}/deliveries",
  tags,
  summary: "Delivery log of a webhook, newest first",
  request: {
    params: webhookParam,
    query: z.object({ limit: pageLimit(50) }),
  },
  responses: {
    200: json(z.object({ deliveries: z.array(deliveryView) }), "Deliveries"),
    ...errorResponses(400, 401, 403, 404),
  },
});

const view = (w: WebhookRow) => ({
  id: w.id,
  url: w.url,
  events: w.events as z.infer<typeof webhookView>["events"],
  createdAt: w.createdAt.toISOString(),
});

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const webhookRoutes = router()
  .openapi(createRoute_, async (c) => {
    const { id } = c.req.valid("param");
    const { webhook, secret } = await createWebhook(c.get("deps"), { orgId: id, ...c.req.valid("json") });
    return c.json({ ...view(webhook), secret }, 201);
  })
  .openapi(listRoute, async (c) => {
    const webhooks = await listOrgWebhooks(c.get("deps"), { orgId: c.req.valid("param").id });
    return c.json({ webhooks: webhooks.map(view) }, 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { id, webhookId } = c.req.valid("param");
    await removeWebhook(c.get("deps"), { orgId: id, webhookId });
    return c.json({ deleted: true as const, id: webhookId }, 200);
  })
  .openapi(deliveriesRoute, async (c) => {
    const { id, webhookId } = c.req.valid("param");
    const rows = await listDeliveries(c.get("deps"), { orgId: id, webhookId, limit: c.req.valid("query").limit });
    return c.json(
      {
        deliveries: rows.map((d) => ({
          id: String(d.id),
          eventId: d.eventId,
          event: d.event,
          status: d.status as "pending" | "delivered" | "failed",
          attempts: d.attempts,
          lastStatusCode: d.lastStatusCode,
          lastError: d.lastError,
          lastAttemptAt: iso(d.lastAttemptAt),
          nextAttemptAt: d.status === "pending" ? iso(d.nextAttemptAt) : null,
          deliveredAt: iso(d.deliveredAt),
          createdAt: d.createdAt.toISOString(),
        })),
      },
      200,
    );
  });

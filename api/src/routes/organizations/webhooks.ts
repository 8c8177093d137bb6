// Webhook management: register (url, events, optional secret; a secret is generated when missing and shown once),
// list, delete, and the delivery log of one webhook. Delivery itself: api/src/webhooks/dispatch.ts.
import { randomBytes } from "node:crypto";
import { isIP } from "node:net";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { ApiError } from "../../errors.ts";
import { addressAllowed, classifyAddress } from "../../jobs/ssrf.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { allowPrivateWebhookTargets, encryptSecret } from "../../webhooks/dispatch.ts";
import { generateWebhookSecret, webhookSecretProblem } from "../../webhooks/signature.ts";
import { authorizeOrg } from "./auth.ts";
import { PLANS } from "./plans.ts";
import { findOrg } from "./repository.ts";
import { deliveryView, orgIdParam, webhookBody, webhookView } from "./schemas.ts";

const tags = ["organizations"];
const webhookParam = orgIdParam.extend({
  webhookId: z
    .string()
    .max(64)
    .openapi({ param: { name: "webhookId", in: "path" } }),
});

const createRoute_ = createRoute({
  method: "post",
  path: "/api/organizations/{id}/webhooks",
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
  path: "/api/organizations/{id}/webhooks",
  tags,
  request: { params: orgIdParam },
  responses: { 200: json(z.object({ webhooks: z.array(webhookView) }), "Webhooks"), ...errorResponses(401, 403, 404) },
});

const deleteRoute = createRoute({
  method: "delete",
  path: "/api/organizations/{id}/webhooks/{webhookId}",
  tags,
  request: { params: webhookParam },
  responses: {
    200: json(z.object({ deleted: z.literal(true), id: z.string() }), "Deleted (pending deliveries are dropped)"),
    ...errorResponses(401, 403, 404),
  },
});

const deliveriesRoute = createRoute({
  method: "get",
  path: "/api/organizations/{id}/webhooks/{webhookId}/deliveries",
  tags,
  summary: "Delivery log of a webhook, newest first",
  request: {
    params: webhookParam,
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(50) }),
  },
  responses: {
    200: json(z.object({ deliveries: z.array(deliveryView) }), "Deliveries"),
    ...errorResponses(400, 401, 403, 404),
  },
});

interface WebhookRow {
  id: string;
  url: string;
  events: string[];
  created_at: Date;
}

const view = (w: WebhookRow) => ({
  id: w.id,
  url: w.url,
  events: w.events as z.infer<typeof webhookView>["events"],
  createdAt: w.created_at.toISOString(),
});

async function authorized(c: Context<AppEnv>, id: string) {
  authorizeOrg(c, id, true);
  return findOrg(c.get("deps"), id);
}

async function findWebhook(c: Context<AppEnv>, orgId: string, webhookId: string): Promise<WebhookRow> {
  const { rows } = await c
    .get("deps")
    .pool.query<WebhookRow>("select id, url, events, created_at from api.org_webhook where id = $1 and org_id = $2", [
      webhookId,
      orgId,
    ]);
  if (!rows[0]) throw new ApiError(404, "WEBHOOK_NOT_FOUND", `webhook ${webhookId} does not exist`);
  return rows[0];
}

const iso = (d: Date | null) => d?.toISOString() ?? null;

export const webhookRoutes = router()
  .openapi(createRoute_, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const org = await authorized(c, id);
    const url = new URL(body.url);
    if (url.username || url.password) {
      throw new ApiError(400, "INVALID_WEBHOOK_URL", "the webhook URL must not carry credentials");
    }
    // Literal addresses are checked now; host names are resolved and checked on every delivery.
    const host = url.hostname.replace(/^\[|\]$/g, "");
    if (isIP(host) && !addressAllowed(classifyAddress(host), allowPrivateWebhookTargets(deps))) {
      throw new ApiError(400, "INVALID_WEBHOOK_URL", `webhooks cannot target ${host}`);
    }
    const secretProblem = body.secret === undefined ? null : webhookSecretProblem(body.secret);
    if (secretProblem) throw new ApiError(400, "INVALID_WEBHOOK_SECRET", secretProblem);
    const secret = body.secret ?? generateWebhookSecret();
    const webhookId = `wh_${randomBytes(12).toString("hex")}`;
    return await withTransaction(deps.pool, async (client) => {
      await client.query("select 1 from api.organization where id = $1 for update", [id]);
      const n = await client.query<{ n: number }>("select count(*)::int n from api.org_webhook where org_id = $1", [
        id,
      ]);
      const limit = PLANS[org.plan].webhooks;
      if (n.rows[0]!.n >= limit) {
        throw new ApiError(403, "PLAN_LIMIT_REACHED", `the ${org.plan} plan allows ${limit} webhooks`);
      }
      const { rows } = await client.query<WebhookRow>(
        `insert into api.org_webhook (id, org_id, url, events, secret_enc) values ($1, $2, $3, $4, $5)
         returning id, url, events, created_at`,
        [webhookId, id, url.href, body.events, encryptSecret(deps, webhookId, secret)],
      );
      return c.json({ ...view(rows[0]!), secret }, 201);
    });
  })
  .openapi(listRoute, async (c) => {
    const { id } = c.req.valid("param");
    await authorized(c, id);
    const { rows } = await c
      .get("deps")
      .pool.query<WebhookRow>(
        "select id, url, events, created_at from api.org_webhook where org_id = $1 order by created_at, id",
        [id],
      );
    return c.json({ webhooks: rows.map(view) }, 200);
  })
  .openapi(deleteRoute, async (c) => {
    const { id, webhookId } = c.req.valid("param");
    await authorized(c, id);
    await findWebhook(c, id, webhookId);
    await c.get("deps").pool.query("delete from api.org_webhook where id = $1 and org_id = $2", [webhookId, id]);
    return c.json({ deleted: true as const, id: webhookId }, 200);
  })
  .openapi(deliveriesRoute, async (c) => {
    const { id, webhookId } = c.req.valid("param");
    const { limit } = c.req.valid("query");
    await authorized(c, id);
    await findWebhook(c, id, webhookId);
    const { rows } = await c.get("deps").pool.query<{
      id: string;
      event_id: string;
      event: string;
      status: "pending" | "delivered" | "failed";
      attempts: number;
      last_status_code: number | null;
      last_error: string | null;
      last_attempt_at: Date | null;
      next_attempt_at: Date;
      delivered_at: Date | null;
      created_at: Date;
    }>(
      `select d.id::text, d.event_id, e.event, d.status, d.attempts, d.last_status_code, d.last_error,
              d.last_attempt_at, d.next_attempt_at, d.delivered_at, d.created_at
         from api.webhook_delivery d join api.org_event e on e.id = d.event_id
        where d.webhook_id = $1 order by d.id desc limit $2`,
      [webhookId, limit],
    );
    return c.json(
      {
        deliveries: rows.map((d) => ({
          id: d.id,
          eventId: d.event_id,
          event: d.event,
          status: d.status,
          attempts: d.attempts,
          lastStatusCode: d.last_status_code,
          lastError: d.last_error,
          lastAttemptAt: iso(d.last_attempt_at),
          nextAttemptAt: d.status === "pending" ? iso(d.next_attempt_at) : null,
          deliveredAt: iso(d.delivered_at),
          createdAt: d.created_at.toISOString(),
        })),
      },
      200,
    );
  });

// Organizations (supplement §4): white-label tenants with their own API credentials, team, custom domain, agents,
// usage statistics, reputation-sharing settings and webhooks. Auth model in auth.ts; webhooks in webhooks.ts.
import { randomBytes } from "node:crypto";
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { AppEnv } from "../../context.ts";
import { withTransaction } from "../../db/transaction.ts";
import { ApiError } from "../../errors.ts";
import { requireAdmin } from "../../lib/admin.ts";
import { clientIp } from "../../lib/client-ip.ts";
import { idempotencyKeyOf } from "../../lib/idempotency.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { registerResponse, registrationAnswer } from "../agents/register.ts";
import { registerAgent } from "../agents/registration.ts";
import { agentSelect, toAgentRecord } from "../agents/repository.ts";
import { agentListItem, registerBody } from "../agents/schemas.ts";
import { toListItem } from "../agents/views.ts";
import { lookupTxt } from "../verifications/dns.ts";
import { authorizeOrg } from "./auth.ts";
import { type CredentialKind, displayPrefix, generateCredential, hashCredential } from "./credentials.ts";
import { choosePlan, PLANS, underLimit } from "./plans.ts";
import { reserveOrgAgentSlot } from "./quota.ts";
import { dnsRecords, findOrg, notFound, type OrgRow, slugify, TXT_PREFIX, toView, txtValue } from "./repository.ts";
import { rotateCredential } from "./rotation.ts";
import {
  createBody,
  createResponseA,
  createResponseB,
  dnsRecord,
  domainName,
  memberRole,
  memberView,
  organizationView,
  orgIdParam,
  patchBody,
  sharingPatch,
  sharingView,
  statsView,
} from "./schemas.ts";
import { webhookRoutes } from "./webhooks.ts";

const tags = ["organizations"];
const memberIdParam = orgIdParam.extend({
  memberId: z
    .string()
    .max(64)
    .openapi({ param: { name: "memberId", in: "path" } }),
});

const newId = (prefix: string) => `${prefix}_${randomBytes(12).toString("hex")}`;

/** Loads the organization after checking the caller may act on it (admin, or its key [+ secret]). */
async function authorized(c: Context<AppEnv>, id: string, needSecret: boolean) {
  const role = authorizeOrg(c, id, needSecret);
  return { role, org: await findOrg(c.get("deps"), id) };
}

const createRoute_ = createRoute({
  method: "post",
  path: "/api/organizations",
  tags,
  summary:
    "Create an organization (admin token). Variant A: subdomain, adminEmail, branding, isolation. Variant B: domain, config.branding",
  middleware: [requireAdmin] as const,
  request: { body: jsonBody(createBody) },
  responses: {
    201: json(z.union([createResponseA, createResponseB]), "Created; the credentials are shown only now"),
    ...errorResponses(400, 401, 403, 409),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/api/organizations/{id}",
  tags,
  summary: "Organization (admin token or the organization's API key)",
  request: { params: orgIdParam },
  responses: { 200: json(organizationView, "Organization"), ...errorResponses(401, 403, 404) },
});

const brandingRoute = createRoute({
  method: "get",
  path: "/api/organizations/{id}/branding",
  tags,
  summary: "Public branding of an organization (for white-label front ends)",
  request: { params: orgIdParam },
  responses: {
    200: json(
      z.object({
        organization: z.object({
          id: z.string(),
          name: z.string(),
          subdomain: z.string(),
          domain: z.string().nullable(),
        }),
        branding: z.record(z.string(), z.string()),
      }),
      "Branding",
    ),
    ...errorResponses(404),
  },
});

const patchRoute = createRoute({
  method: "patch",
  path: "/api/organizations/{id}",
  tags,
  summary: "Update name, branding (merged) or admin email; plan with the admin token only",
  request: { params: orgIdParam, body: jsonBody(patchBody) },
  responses: { 200: json(organizationView, "Updated organization"), ...errorResponses(400, 401, 403, 404) },
});

const rotateRoute = createRoute({
  method: "post",
  path: "/api/organizations/{id}/rotate-key",
  tags,
  summary:
    "New live key (default), test key or secret; the values it replaces keep working for 7 days, or stop now with revokePrevious",
  request: {
    params: orgIdParam,
    body: {
      required: false,
      content: {
        "application/json": {
          schema: z
            .object({
              kind: z.enum(["live", "test", "secret"]).default("live"),
              revokePrevious: z.boolean().default(false).openapi({
                description: "End every earlier value of this kind now (a leaked key or secret), no grace period",
              }),
            })
            .strict(),
        },
      },
    },
  },
  responses: {
    200: json(
      z.object({
        kind: z.enum(["live", "test", "secret"]),
        apiKey: z.string().optional().openapi({ description: "the new live key (kind live)" }),
        testApiKey: z.string().optional().openapi({ description: "the new test key (kind test)" }),
        apiSecret: z.string().optional().openapi({ description: "the new secret (kind secret)" }),
        previousKeyValidUntil: z
          .string()
          .nullable()
          .openapi({ description: "when the replaced values stop working; null: they already have" }),
      }),
      "Rotated",
    ),
    ...errorResponses(400, 401, 403, 404),
  },
});

const statsRoute = createRoute({
  method: "get",
  path: "/api/organizations/{id}/stats",
  tags,
  request: { params: orgIdParam },
  responses: { 200: json(statsView, "Statistics"), ...errorResponses(401, 403, 404) },
});

const addMemberRoute = createRoute({
  method: "post",
  path: "/api/organizations/{id}/members",
  tags,
  request: { params: orgIdParam, body: jsonBody(z.object({ email: z.email().max(254), role: memberRole }).strict()) },
  responses: { 201: json(memberView, "Member"), ...errorResponses(400, 401, 403, 404, 409) },
});

const listMembersRoute = createRoute({
  method: "get",
  path: "/api/organizations/{id}/members",
  tags,
  request: { params: orgIdParam },
  responses: {
    200: json(z.object({ members: z.array(memberView), limit: z.number().nullable() }), "Members"),
    ...errorResponses(401, 403, 404),
  },
});

const removeMemberRoute = createRoute({
  method: "delete",
  path: "/api/organizations/{id}/members/{memberId}",
  tags,
  request: { params: memberIdParam },
  responses: {
    200: json(z.object({ removed: z.literal(true), member: memberView }), "Removed"),
    ...errorResponses(401, 403, 404, 409),
  },
});

const domainOut = z.object({
  domain: z.string(),
  status: z.enum(["pending", "active"]),
  dnsRecords: z.array(dnsRecord),
  verifiedAt: z.string().nullable(),
});

const domainRoute = createRoute({
  method: "post",
  path: "/api/organizations/{id}/domain",
  tags,
  summary: "Configure a custom domain: publish the CNAME and the TXT record, then call domain/verify",
  request: { params: orgIdParam, body: jsonBody(z.object({ domain: domainName }).strict()) },
  responses: { 200: json(domainOut, "Pending domain"), ...errorResponses(400, 401, 403, 404, 409) },
});

const verifyDomainRoute = createRoute({
  method: "post",
  path: "/api/organizations/{id}/domain/verify",
  tags,
  summary: "Look up the TXT record; the domain becomes active when it holds the token",
  request: { params: orgIdParam },
  responses: {
    200: json(domainOut.extend({ verified: z.literal(true) }), "Active domain"),
    ...errorResponses(400, 401, 403, 404, 409, 503),
  },
});

const registerOrgAgentRoute = createRoute({
  method: "post",
  path: "/api/organizations/{id}/agents",
  tags,
  summary: "Register an agent under the organization (x-api-key + x-api-secret, or admin token)",
  request: { params: orgIdParam, body: jsonBody(registerBody) },
  responses: {
    201: json(registerResponse.extend({ organization: z.string() }), "Registered"),
    ...errorResponses(400, 401, 403, 404, 503),
  },
});

const searchRoute = createRoute({
  method: "get",
  path: "/api/organizations/{id}/agents/search",
  tags,
  summary: "The organization's agents, filtered by capabilities (all of, comma separated) and domain",
  request: {
    params: orgIdParam,
    query: z.object({
      capabilities: z.string().max(1000).optional(),
      domain: z.string().max(100).optional(),
      page: z.coerce.number().int().min(1).max(1_000_000).default(1),
      limit: z.coerce.number().int().min(1).max(100).default(20),
    }),
  },
  responses: {
    200: json(z.object({ agents: z.array(agentListItem), total: z.number() }), "Agents"),
    ...errorResponses(400, 401, 403, 404),
  },
});

const getSharingRoute = createRoute({
  method: "get",
  path: "/api/organizations/{id}/reputation-sharing",
  tags,
  request: { params: orgIdParam },
  responses: { 200: json(sharingView, "Settings"), ...errorResponses(401, 403, 404) },
});

const patchSharingRoute = createRoute({
  method: "patch",
  path: "/api/organizations/{id}/reputation-sharing",
  tags,
  request: { params: orgIdParam, body: jsonBody(sharingPatch) },
  responses: { 200: json(sharingView, "Settings"), ...errorResponses(400, 401, 403, 404) },
});

const sharing = (o: OrgRow) => ({
  organization: o.id,
  shareOutbound: o.share_outbound,
  acceptInbound: o.accept_inbound,
  whitelistOrgs: o.whitelist_orgs,
});

const memberOut = (m: { id: string; email: string; role: "admin" | "developer" | "viewer"; created_at: Date }) => ({
  id: m.id,
  email: m.email,
  role: m.role,
  createdAt: m.created_at.toISOString(),
});

const domainAnswer = (c: Context<AppEnv>, o: OrgRow) => ({
  domain: o.domain!,
  status: o.domain_status!,
  dnsRecords: dnsRecords(c.get("deps"), o),
  verifiedAt: o.domain_verified_at?.toISOString() ?? null,
});

function assertCustomDomain(o: OrgRow) {
  if (!PLANS[o.plan].customDomain) {
    throw new ApiError(403, "PLAN_LIMIT_REACHED", `the ${o.plan} plan has no custom domain; upgrade to growth`);
  }
}

export const organizationRoutes = router()
  .openapi(createRoute_, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    const variantA = body.subdomain !== undefined;
    const isolation = body.isolation ?? "none";
    const decision = choosePlan({ plan: body.plan, isolation, customDomain: body.domain !== undefined });
    if (!decision.ok) throw new ApiError(403, decision.code, decision.message);
    const branding = body.branding ?? body.config?.branding ?? {};
    const id = newId("org");
    const creds = {
      live: generateCredential("live"),
      test: generateCredential("test"),
      secret: generateCredential("secret"),
    };
    let row!: OrgRow;
    await withTransaction(deps.pool, async (client) => {
      // Variant B has no subdomain: derive one from the name, with a suffix if taken.
      let sub = body.subdomain ?? slugify(body.name);
      if (!variantA) {
        const taken = await client.query("select 1 from api.organization where subdomain = $1", [sub]);
        if (taken.rowCount) sub = `${sub.slice(0, 54)}-${randomBytes(4).toString("hex")}`;
      }
      try {
        const inserted = await client.query<OrgRow>(
          `insert into api.organization (id, name, subdomain, admin_email, plan, isolation, branding, domain, domain_status, domain_token)
           values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) returning *`,
          [
            id,
            body.name,
            sub,
            body.adminEmail ?? null,
            decision.plan,
            isolation,
            JSON.stringify(branding),
            body.domain ?? null,
            body.domain ? "pending" : null,
            body.domain ? randomBytes(16).toString("hex") : null,
          ],
        );
        row = inserted.rows[0]!;
      } catch (err) {
        if ((err as { code?: string }).code === "23505") {
          throw new ApiError(409, "SUBDOMAIN_TAKEN", `subdomain ${sub} is already taken`);
        }
        throw err;
      }
      for (const kind of ["live", "test", "secret"] as CredentialKind[]) {
        await client.query("insert into api.org_credential (key_hash, org_id, kind, prefix) values ($1, $2, $3, $4)", [
          hashCredential(creds[kind]),
          id,
          kind,
          displayPrefix(creds[kind]),
        ]);
      }
      if (body.adminEmail) {
        await client.query("insert into api.org_member (id, org_id, email, role) values ($1, $2, $3, 'admin')", [
          newId("mem"),
          id,
          body.adminEmail.toLowerCase(),
        ]);
      }
    });
    const view = toView(deps, row);
    if (variantA) {
      return c.json(
        {
          id,
          name: row.name,
          subdomain: row.subdomain,
          apiKey: creds.live,
          testApiKey: creds.test,
          apiSecret: creds.secret,
          dashboard: view.dashboard,
          createdAt: view.createdAt,
          plan: row.plan,
          isolation: row.isolation,
        },
        201,
      );
    }
    const records = dnsRecords(deps, row);
    return c.json(
      {
        organization: view,
        credentials: { apiKey: creds.live, apiSecret: creds.secret, testApiKey: creds.test },
        ...(records.length ? { dnsRecords: records } : {}),
        message: `Organization ${row.name} created on the ${row.plan} plan. Store the credentials now: they are shown only once.${records.length ? ` Publish the DNS records, then POST /api/organizations/${id}/domain/verify.` : ""}`,
      },
      201,
    );
  })
  .openapi(getRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { org } = await authorized(c, id, false);
    return c.json(toView(c.get("deps"), org), 200);
  })
  .openapi(brandingRoute, async (c) => {
    const { id } = c.req.valid("param");
    const o = await findOrg(c.get("deps"), id);
    return c.json(
      {
        organization: {
          id: o.id,
          name: o.name,
          subdomain: o.subdomain,
          domain: o.domain_status === "active" ? o.domain : null,
        },
        branding: o.branding,
      },
      200,
    );
  })
  .openapi(patchRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    const { role } = await authorized(c, id, true);
    if (body.plan !== undefined && role !== "admin") {
      throw new ApiError(403, "ADMIN_ONLY", "only the admin token may change an organization's plan");
    }
    const { rows } = await deps.pool.query<OrgRow>(
      `update api.organization set name = coalesce($2, name), branding = branding || $3::jsonb,
              admin_email = coalesce($4, admin_email), plan = coalesce($5, plan), updated_at = now()
        where id = $1 returning *`,
      [id, body.name ?? null, JSON.stringify(body.branding ?? {}), body.adminEmail ?? null, body.plan ?? null],
    );
    if (!rows[0]) throw notFound(id);
    return c.json(toView(deps, rows[0]), 200);
  })
  .openapi(rotateRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { kind = "live", revokePrevious = false } = c.req.valid("json") as {
      kind?: CredentialKind;
      revokePrevious?: boolean;
    };
    await authorized(c, id, true);
    const rotated = await rotateCredential(deps.pool, id, kind, revokePrevious);
    const field = { live: "apiKey", test: "testApiKey", secret: "apiSecret" }[kind];
    return c.json(
      { kind, [field]: rotated.value, previousKeyValidUntil: rotated.previousValidUntil?.toISOString() ?? null },
      200,
    );
  })
  .openapi(statsRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    await authorized(c, id, false);
    const schema = deps.env.INDEXER_SCHEMA;
    const { rows } = await deps.pool.query<{
      total: number;
      active: number;
      avg_rep: number | null;
      created: number;
      completed: number;
      volume: string;
      requests: string;
      payments: string;
      x402_volume: string;
    }>(
      `with agents as (
         select a.id, lower(a.wallet) wallet, lower(a.owner) owner from api.agent_wallet w
           join ${schema}.agent a on a.id = w.agent_id where w.org_id = $1
       ),
       addrs as (select wallet addr from agents union select owner from agents),
       runs as (
         select r.* from ${schema}.run r
          where r.agent_id in (select id from agents) or lower(r.poster) in (select addr from addrs)
       )
       select (select count(*)::int from agents) total,
              (select count(*)::int from agents g join ${schema}.stake s on s.agent_id = g.id
                where s.amount - s.pending_withdrawal >= $2::numeric) active,
              (select avg(rep.score)::float8 from api.reputation rep where rep.agent_id in (select id from agents)) avg_rep,
              (select count(*)::int from runs where lower(poster) in (select addr from addrs)) created,
              (select count(*)::int from runs where state = 'Completed') completed,
              (select coalesce(sum(reward), 0)::text from runs where state = 'Completed') volume,
              (select coalesce(sum(requests), 0)::text from api.org_usage where org_id = $1) requests,
              (select coalesce(sum(x402_payments), 0)::text from api.org_usage where org_id = $1) payments,
              (select coalesce(sum(x402_volume), 0)::text from api.org_usage where org_id = $1) x402_volume`,
      [id, "20000000"],
    );
    const s = rows[0]!;
    return c.json(
      {
        organization: id,
        agents: { total: s.total, active: s.active, avgReputation: Math.round((s.avg_rep ?? 0) * 100) / 100 },
        bounties: { created: s.created, completed: s.completed, totalVolume: s.volume },
        apiUsage: { requests: Number(s.requests), x402Payments: Number(s.payments), x402Volume: s.x402_volume },
      },
      200,
    );
  })
  .openapi(addMemberRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    await authorized(c, id, true);
    return await withTransaction(deps.pool, async (client) => {
      const o = await client.query<{ plan: OrgRow["plan"] }>(
        "select plan from api.organization where id = $1 for update",
        [id],
      );
      const limit = PLANS[o.rows[0]!.plan].members;
      const n = await client.query<{ n: number }>("select count(*)::int n from api.org_member where org_id = $1", [id]);
      if (!underLimit(n.rows[0]!.n, limit)) {
        throw new ApiError(403, "PLAN_LIMIT_REACHED", `the ${o.rows[0]!.plan} plan allows ${limit} team members`);
      }
      const inserted = await client.query(
        `insert into api.org_member (id, org_id, email, role) values ($1, $2, $3, $4)
         on conflict (org_id, email) do nothing returning *`,
        [newId("mem"), id, body.email.toLowerCase(), body.role],
      );
      if (!inserted.rows[0]) throw new ApiError(409, "MEMBER_EXISTS", `${body.email} is already a member`);
      return c.json(memberOut(inserted.rows[0]), 201);
    });
  })
  .openapi(listMembersRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { org } = await authorized(c, id, true);
    const { rows } = await deps.pool.query("select * from api.org_member where org_id = $1 order by created_at, id", [
      id,
    ]);
    return c.json({ members: rows.map(memberOut), limit: PLANS[org.plan].members }, 200);
  })
  .openapi(removeMemberRoute, async (c) => {
    const deps = c.get("deps");
    const { id, memberId } = c.req.valid("param");
    await authorized(c, id, true);
    return await withTransaction(deps.pool, async (client) => {
      await client.query("select 1 from api.organization where id = $1 for update", [id]);
      const m = await client.query("select * from api.org_member where id = $1 and org_id = $2", [memberId, id]);
      const member = m.rows[0];
      if (!member) throw new ApiError(404, "MEMBER_NOT_FOUND", `member ${memberId} does not exist`);
      if (member.role === "admin") {
        const admins = await client.query<{ n: number }>(
          "select count(*)::int n from api.org_member where org_id = $1 and role = 'admin'",
          [id],
        );
        if (admins.rows[0]!.n <= 1) throw new ApiError(409, "LAST_ADMIN", "an organization keeps at least one admin");
      }
      await client.query("delete from api.org_member where id = $1", [memberId]);
      return c.json({ removed: true as const, member: memberOut(member) }, 200);
    });
  })
  .openapi(domainRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { domain } = c.req.valid("json");
    const { org } = await authorized(c, id, true);
    assertCustomDomain(org);
    if (org.domain === domain && org.domain_status) return c.json(domainAnswer(c, org), 200);
    const taken = await deps.pool.query(
      "select 1 from api.organization where domain = $1 and domain_status = 'active' and id <> $2",
      [domain, id],
    );
    if (taken.rowCount) throw new ApiError(409, "DOMAIN_TAKEN", `${domain} is in use by another organization`);
    const { rows } = await deps.pool.query<OrgRow>(
      `update api.organization set domain = $2, domain_status = 'pending', domain_token = $3, domain_verified_at = null,
              updated_at = now() where id = $1 returning *`,
      [id, domain, randomBytes(16).toString("hex")],
    );
    return c.json(domainAnswer(c, rows[0]!), 200);
  })
  .openapi(verifyDomainRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const { org } = await authorized(c, id, true);
    assertCustomDomain(org);
    if (!org.domain || !org.domain_token) {
      throw new ApiError(400, "DOMAIN_NOT_CONFIGURED", "configure a domain first: POST /api/organizations/{id}/domain");
    }
    if (org.domain_status === "active") return c.json({ ...domainAnswer(c, org), verified: true as const }, 200);
    const name = `${TXT_PREFIX}.${org.domain}`;
    const values = await lookupTxt(deps, name);
    if (!values.includes(txtValue(org.domain_token))) {
      throw new ApiError(
        400,
        "DOMAIN_NOT_VERIFIED",
        `no TXT record "${txtValue(org.domain_token)}" at ${name} yet (DNS changes can take up to 48 hours)`,
      );
    }
    let updated: OrgRow;
    try {
      const { rows } = await deps.pool.query<OrgRow>(
        `update api.organization set domain_status = 'active', domain_verified_at = now(), updated_at = now()
          where id = $1 and domain = $2 returning *`,
        [id, org.domain],
      );
      if (!rows[0]) throw new ApiError(409, "DOMAIN_CHANGED", "the domain changed during verification; retry");
      updated = rows[0];
    } catch (err) {
      if ((err as { code?: string }).code === "23505") {
        throw new ApiError(409, "DOMAIN_TAKEN", `${org.domain} is in use by another organization`);
      }
      throw err;
    }
    return c.json({ ...domainAnswer(c, updated), verified: true as const }, 200);
  })
  .openapi(registerOrgAgentRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    await authorized(c, id, true);
    const registered = await registerAgent(deps, body, {
      ip: clientIp(c, deps.env.TRUST_PROXY),
      orgId: id,
      idempotencyKey: idempotencyKeyOf(c),
      beforeInsert: (client) => reserveOrgAgentSlot(client, id),
    });
    return c.json({ ...registrationAnswer(deps, registered), organization: id }, 201);
  })
  .openapi(searchRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const q = c.req.valid("query");
    await authorized(c, id, true);
    const caps = (q.capabilities ?? "")
      .split(",")
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean);
    const domain = q.domain?.trim().toLowerCase() || null;
    const where = `where w.org_id = $1
        and (cardinality($2::text[]) = 0 or array(select lower(x) from unnest(p.capabilities) x) @> $2::text[])
        and ($3::text is null or $3::text = any(array(select lower(x) from unnest(p.domains) x)))`;
    const params = [id, caps, domain];
    const [list, count] = await Promise.all([
      deps.pool.query(`${agentSelect(deps.env.INDEXER_SCHEMA)} ${where} order by a.id limit $4 offset $5`, [
        ...params,
        q.limit,
        (q.page - 1) * q.limit,
      ]),
      deps.pool.query<{ n: number }>(
        `select count(*)::int n from api.agent_wallet w join api.agent_profile p on p.agent_id = w.agent_id
           join ${deps.env.INDEXER_SCHEMA}.agent a on a.id = w.agent_id ${where}`,
        params,
      ),
    ]);
    return c.json({ agents: list.rows.map((r) => toListItem(toAgentRecord(r))), total: count.rows[0]!.n }, 200);
  })
  .openapi(getSharingRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { org } = await authorized(c, id, false);
    return c.json(sharing(org), 200);
  })
  .openapi(patchSharingRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const body = c.req.valid("json");
    await authorized(c, id, true);
    const whitelist = body.whitelistOrgs ? [...new Set(body.whitelistOrgs)] : null;
    if (whitelist) {
      if (whitelist.includes(id))
        throw new ApiError(400, "INVALID_WHITELIST", "an organization cannot whitelist itself");
      const known = await deps.pool.query<{ id: string }>("select id from api.organization where id = any($1)", [
        whitelist,
      ]);
      const unknown = whitelist.filter((w) => !known.rows.some((k) => k.id === w));
      if (unknown.length) throw new ApiError(400, "INVALID_WHITELIST", `unknown organizations: ${unknown.join(", ")}`);
    }
    const { rows } = await deps.pool.query<OrgRow>(
      `update api.organization set share_outbound = coalesce($2, share_outbound),
              accept_inbound = coalesce($3, accept_inbound), whitelist_orgs = coalesce($4, whitelist_orgs),
              updated_at = now() where id = $1 returning *`,
      [id, body.shareOutbound ?? null, body.acceptInbound ?? null, whitelist],
    );
    return c.json(sharing(rows[0]!), 200);
  })
  .route("/", webhookRoutes);

// Organizations (supplement §4): creation (platform admin token), the organization itself, its public branding,
// settings, key rotation and statistics. Roles are checked by auth/roles.ts before a handler runs.
import { createRoute, z } from "@hono/zod-openapi";
import { isAdmin, requireAdmin } from "../../auth/admin.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { createOrganization } from "../../use-cases/organizations/create-organization.ts";
import { getOrganization } from "../../use-cases/organizations/get-organization.ts";
import { organizationStats } from "../../use-cases/organizations/organization-stats.ts";
import { rotateOrgCredential } from "../../use-cases/organizations/rotate-credential.ts";
import { updateOrganization } from "../../use-cases/organizations/update-organization.ts";
import {
  createBody,
  createResponseA,
  createResponseB,
  organizationView,
  orgIdParam,
  patchBody,
  statsView,
} from "./schemas.ts";
import { brandingOut, createdOut, organizationOut } from "./views.ts";

const tags = ["organizations"];

const createRoute_ = createRoute({
  method: "post",
  path: "/",
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
  path: "/{id}",
  tags,
  summary: "Organization (admin token or the organization's API key)",
  request: { params: orgIdParam },
  responses: { 200: json(organizationView, "Organization"), ...errorResponses(401, 403, 404) },
});

const brandingRoute = createRoute({
  method: "get",
  path: "/{id}/branding",
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
  path: "/{id}",
  tags,
  summary: "Update name, branding (merged) or admin email; plan with the admin token only",
  request: { params: orgIdParam, body: jsonBody(patchBody) },
  responses: { 200: json(organizationView, "Updated organization"), ...errorResponses(400, 401, 403, 404) },
});

const rotateRoute = createRoute({
  method: "post",
  path: "/{id}/rotate-key",
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
  path: "/{id}/stats",
  tags,
  request: { params: orgIdParam },
  responses: { 200: json(statsView, "Statistics"), ...errorResponses(401, 403, 404) },
});

export const organizationCoreRoutes = router()
  .openapi(createRoute_, async (c) => {
    const deps = c.get("deps");
    const body = c.req.valid("json");
    const branding = body.branding ?? body.config?.branding ?? {};
    const created = await createOrganization(deps, { ...body, branding });
    return c.json(createdOut(deps, created, body.subdomain !== undefined), 201);
  })
  .openapi(getRoute, async (c) => {
    const org = await getOrganization(c.get("deps"), c.req.valid("param"));
    return c.json(organizationOut(c.get("deps"), org), 200);
  })
  .openapi(brandingRoute, async (c) =>
    c.json(brandingOut(await getOrganization(c.get("deps"), c.req.valid("param"))), 200),
  )
  .openapi(patchRoute, async (c) => {
    const deps = c.get("deps");
    const { id } = c.req.valid("param");
    const org = await updateOrganization(deps, { id, ...c.req.valid("json"), platformAdmin: isAdmin(c) });
    return c.json(organizationOut(deps, org), 200);
  })
  .openapi(rotateRoute, async (c) => {
    const { id } = c.req.valid("param");
    const { kind = "live", revokePrevious = false } = c.req.valid("json") as {
      kind?: "live" | "test" | "secret";
      revokePrevious?: boolean;
    };
    const rotated = await rotateOrgCredential(c.get("deps"), { orgId: id, kind, revokePrevious });
    const field = { live: "apiKey", test: "testApiKey", secret: "apiSecret" }[kind];
    return c.json(
      { kind, [field]: rotated.value, previousKeyValidUntil: rotated.previousValidUntil?.toISOString() ?? null },
      200,
    );
  })
  .openapi(statsRoute, async (c) => {
    const { id } = c.req.valid("param");
    return c.json(await organizationStats(c.get("deps"), { orgId: id }), 200);
  });

import { z } from "@hono/zod-openapi";
import { ISOLATION_LEVELS, PLAN_NAMES, ROLES } from "../../domain/plans.ts";
import { domainNameSchema, httpUrl } from "../../lib/schemas.ts";
import { WEBHOOK_EVENTS } from "../../webhooks/events.ts";

const hexColor = z
  .string()
  .regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/, "must be a hex color like #1a2b3c");

export const brandingInput = z
  .object({
    logo: httpUrl.optional(),
    primaryColor: hexColor.optional(),
    accentColor: hexColor.optional(),
    secondaryColor: hexColor.optional(),
    fontFamily: z
      .string()
      .max(100)
      .regex(/^[\w\s,'"-]+$/, "letters, digits, spaces, commas, quotes and dashes only")
      .optional(),
    customCSS: z
      .string()
      .max(10_000)
      .refine((v) => !v.includes("<"), "must not contain '<'")
      .optional(),
  })
  .strict()
  .openapi("OrganizationBranding");

const RESERVED_SUBDOMAINS = new Set(["www", "api", "app", "admin", "dashboard", "docs", "mail", "status", "static"]);
export const subdomain = z
  .string()
  .trim()
  .toLowerCase()
  .regex(/^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/, "3-63 characters: a-z, 0-9 and inner dashes")
  .refine((v) => !RESERVED_SUBDOMAINS.has(v), "this subdomain is reserved");

export const domainName = domainNameSchema("agents.example.com");

export const createBody = z
  .object({
    name: z.string().trim().min(1).max(100),
    // Variant A
    subdomain: subdomain.optional(),
    adminEmail: z.email().max(254).optional(),
    branding: brandingInput.optional(),
    isolation: z.enum(ISOLATION_LEVELS).optional(),
    // Variant B
    domain: domainName.optional(),
    config: z.object({ branding: brandingInput.optional() }).strict().optional(),
    /** Not in the spec: the plan (default: the cheapest self-service plan allowing what is asked). */
    plan: z.enum(PLAN_NAMES).optional(),
  })
  .strict()
  .refine((b) => !(b.branding && b.config?.branding), "give branding or config.branding, not both")
  .openapi("CreateOrganization");

export const dnsRecord = z.object({ type: z.enum(["CNAME", "TXT"]), name: z.string(), value: z.string() });

export const organizationView = z
  .object({
    id: z.string(),
    name: z.string(),
    subdomain: z.string(),
    domain: z.string().nullable(),
    domainStatus: z.enum(["pending", "active"]).nullable(),
    adminEmail: z.string().nullable(),
    plan: z.enum(PLAN_NAMES),
    isolation: z.enum(ISOLATION_LEVELS),
    branding: z.record(z.string(), z.string()),
    dashboard: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    limits: z.object({
      requestsPerMinute: z.number(),
      agents: z.number().nullable(),
      members: z.number().nullable(),
      webhooks: z.number(),
      customDomain: z.boolean(),
      paymentsPerDay: z.number().nullable().openapi({ description: "x402 payments per UTC day; null: unlimited" }),
      apiCallsPerMonth: z.number().nullable().openapi({ description: "API calls per UTC month; null: unlimited" }),
    }),
  })
  .openapi("Organization");

export const createResponseA = z.object({
  id: z.string(),
  name: z.string(),
  subdomain: z.string(),
  apiKey: z.string(),
  testApiKey: z.string(),
  apiSecret: z.string(),
  dashboard: z.string(),
  createdAt: z.string(),
  plan: z.enum(PLAN_NAMES),
  isolation: z.enum(ISOLATION_LEVELS),
});
export const createResponseB = z.object({
  organization: organizationView,
  credentials: z.object({ apiKey: z.string(), apiSecret: z.string(), testApiKey: z.string() }),
  dnsRecords: z.array(dnsRecord).optional(),
  message: z.string(),
});

const pathText = z.string().max(64);
export const orgIdParam = z.object({
  id: pathText.openapi({ param: { name: "id", in: "path" }, example: "org_4f1c..." }),
});

/** The organization's id and one of its things (a member, a webhook) by `name`, both in the path. */
export const orgItemParam = <const name extends string>(name: name) =>
  orgIdParam.extend({ [name]: pathText.openapi({ param: { name, in: "path" } }) } as Record<name, z.ZodString>);

export const patchBody = z
  .object({
    name: z.string().trim().min(1).max(100).optional(),
    branding: brandingInput.optional(),
    adminEmail: z.email().max(254).optional(),
    /** Admin token only. */
    plan: z.enum(PLAN_NAMES).optional(),
    /** Admin token only: the organization's own quotas (enterprise "custom"); null: the plan's value. */
    quotas: z
      .object({
        paymentsPerDay: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
        apiCallsPerMonth: z.number().int().min(1).max(1_000_000_000).nullable().optional(),
      })
      .strict()
      .optional()
      .openapi({ description: "platform admin token only: per-organization quotas; null restores the plan's" }),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, "nothing to update");

export const memberRole = z.enum(ROLES);
export const memberView = z
  .object({ id: z.string(), email: z.string(), role: memberRole, createdAt: z.string() })
  .openapi("OrganizationMember");

export const webhookEvent = z.enum(WEBHOOK_EVENTS);
export const webhookBody = z
  .object({
    url: httpUrl,
    events: z
      .array(webhookEvent)
      .min(1)
      .max(WEBHOOK_EVENTS.length)
      .refine((e) => new Set(e).size === e.length, "events must not repeat"),
    secret: z.string().min(16).max(200).optional(),
  })
  .strict();
export const webhookView = z
  .object({ id: z.string(), url: z.string(), events: z.array(webhookEvent), createdAt: z.string() })
  .openapi("Webhook");
export const deliveryView = z
  .object({
    id: z.string(),
    eventId: z.string(),
    event: z.string(),
    status: z.enum(["pending", "delivered", "failed"]),
    attempts: z.number(),
    lastStatusCode: z.number().nullable(),
    lastError: z.string().nullable(),
    lastAttemptAt: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("WebhookDelivery");

export const sharingView = z
  .object({
    organization: z.string(),
    shareOutbound: z.boolean(),
    acceptInbound: z.boolean(),
    whitelistOrgs: z.array(z.string()),
  })
  .openapi("ReputationSharing");
export const sharingPatch = z
  .object({
    shareOutbound: z.boolean().optional(),
    acceptInbound: z.boolean().optional(),
    whitelistOrgs: z.array(z.string().max(64)).max(100).optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, "nothing to update");

export const statsView = z
  .object({
    organization: z.string(),
    agents: z.object({ total: z.number(), active: z.number(), avgReputation: z.number() }),
    bounties: z.object({ created: z.number(), completed: z.number(), totalVolume: z.string() }),
    apiUsage: z.object({ requests: z.number(), x402Payments: z.number(), x402Volume: z.string() }),
  })
  .openapi("OrganizationStats");

// The credentials of the OpenAPI document (components.securitySchemes, the /docs "Authorize" button) and which
// operations take them. Operations name their own where a middleware or handler demands one (admin token, access
// token); the paid routes (PRICES) and the organization routes (ROLE_POLICY) get theirs here from the tables that
// enforce them, and every other /api operation optionally takes an organization or member key (plan rate limits,
// organization scope; auth/org-key.ts).

import { PAID_PATHS } from "../domain/prices.ts";
import { ROLE_POLICY } from "./roles.ts";

export const SECURITY_SCHEMES = {
  orgKey: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "An organization's API key (ah_live_… or ah_test_…; also accepted as `Authorization: Bearer`)",
  },
  orgSecret: {
    type: "apiKey",
    in: "header",
    name: "X-API-Secret",
    description: "The organization's API secret (ah_secret_…): with the key, the organization's admin role",
  },
  memberKey: {
    type: "apiKey",
    in: "header",
    name: "X-API-Key",
    description: "A team member's own key (ah_member_…), acting with that member's role",
  },
  accessToken: {
    type: "http",
    scheme: "bearer",
    description: "A governance access token (ahg_…) from POST /api/auth/token, bound to the signed-in address",
  },
  adminToken: { type: "http", scheme: "bearer", description: "The platform operator's ADMIN_TOKEN" },
  xPayment: {
    type: "apiKey",
    in: "header",
    name: "X-Payment",
    description: "A payment per request: the spec's EIP-712 Payment (JSON) or x402 v1 (base64 JSON)",
  },
  x402: {
    type: "apiKey",
    in: "header",
    name: "PAYMENT-SIGNATURE",
    description: "x402 v2: an EIP-3009 USDC authorization, settled on chain (offer in the 402 PAYMENT-REQUIRED header)",
  },
} as const;

type Requirement = Partial<Record<keyof typeof SECURITY_SCHEMES, string[]>>;

export const ADMIN_TOKEN: Requirement[] = [{ adminToken: [] }];
export const ACCESS_TOKEN: Requirement[] = [{ accessToken: [] }];
const PAYMENT: Requirement[] = [{ x402: [] }, { xPayment: [] }];
/** Anyone; an organization or member key changes the rate limit and the scope. */
const OPTIONAL_ORG_KEY: Requirement[] = [{}, { orgKey: [] }, { memberKey: [] }];

function orgRouteSecurity(policy: (typeof ROLE_POLICY)[string]): Requirement[] {
  if (policy === "public") return [];
  if (policy === "platform") return ADMIN_TOKEN;
  const keyAlone = policy.includes("developer") ? [{ orgKey: [] }] : []; // the key without its secret: developer
  return [...ADMIN_TOKEN, { orgKey: [], orgSecret: [] }, ...keyAlone, { memberKey: [] }];
}

interface Document {
  paths?: Record<string, Record<string, unknown>>;
  components?: Record<string, unknown>;
}

const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options"]);

/** The served document with the security schemes declared and each operation's credentials. */
export function withSecurity<T extends object>(served: T): T {
  const doc = served as Document;
  const paid = new Set<string>(PAID_PATHS);
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const honoPath = path.replace(/\{([^}]+)\}/g, ":$1");
    for (const [method, op] of Object.entries(item)) {
      if (!METHODS.has(method) || typeof op !== "object" || op === null) continue;
      const operation = op as { security?: Requirement[] };
      const policy = ROLE_POLICY[`${method.toUpperCase()} ${honoPath}`];
      if (policy) operation.security = orgRouteSecurity(policy);
      else if (paid.has(path)) operation.security = PAYMENT;
      else if (!operation.security && path.startsWith("/api/")) operation.security = OPTIONAL_ORG_KEY;
    }
  }
  doc.components = { ...doc.components, securitySchemes: SECURITY_SCHEMES };
  return served;
}

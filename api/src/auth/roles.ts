// Organization roles (supplement §2, "Team member"; docs/decisions.md, "Organization roles"). Who acts:
// - the platform admin token: everything;
// - the organization key with its x-api-secret: admin; the key alone: developer;
// - a member key (`ah_member_...`): that member's role.
// Roles: admin everything; developer API use and analytics (no key rotation, member, domain, settings or billing
// changes); viewer read-only. Every organization route is listed below; a route without an entry is refused to
// every organization credential (fail closed), and the e2e role matrix walks /openapi.json against this table.
import type { MiddlewareHandler } from "hono";
import { matchedRoutes } from "hono/route";
import type { AppEnv } from "../context.ts";
import { ROLES, type Role } from "../domain/plans.ts";
import { apiError } from "../errors.ts";
import { isAdmin } from "./admin.ts";

export { ROLES, type Role };

const ALL: readonly Role[] = ROLES;
const WORK: readonly Role[] = ["admin", "developer"];
const ADMIN: readonly Role[] = ["admin"];

/** Per route (method and Hono path): the roles allowed, "public" (no credential) or "platform" (admin token only). */
export const ROLE_POLICY: Record<string, readonly Role[] | "public" | "platform"> = {
  "POST /api/organizations": "platform",
  "GET /api/organizations/:id": ALL,
  "GET /api/organizations/:id/branding": "public",
  "PATCH /api/organizations/:id": ADMIN,
  "POST /api/organizations/:id/rotate-key": ADMIN,
  "GET /api/organizations/:id/stats": ALL,
  "POST /api/organizations/:id/members": ADMIN,
  "GET /api/organizations/:id/members": ALL,
  "PATCH /api/organizations/:id/members/:memberId": ADMIN,
  "DELETE /api/organizations/:id/members/:memberId": ADMIN,
  "POST /api/organizations/:id/members/:memberId/key": ADMIN,
  "POST /api/organizations/:id/domain": ADMIN,
  "POST /api/organizations/:id/domain/verify": ADMIN,
  "POST /api/organizations/:id/agents": WORK,
  "GET /api/organizations/:id/agents/search": ALL,
  "GET /api/organizations/:id/reputation-sharing": ALL,
  "PATCH /api/organizations/:id/reputation-sharing": ADMIN,
  "POST /api/organizations/:id/webhooks": ADMIN,
  "GET /api/organizations/:id/webhooks": ALL,
  "DELETE /api/organizations/:id/webhooks/:webhookId": ADMIN,
  "GET /api/organizations/:id/webhooks/:webhookId/deliveries": ALL,
};

const READ_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** A viewer's credential only reads, on every route (not only the organization's). */
export function assertViewerReads(role: Role, method: string): void {
  if (role === "viewer" && !READ_METHODS.has(method)) {
    throw apiError("FORBIDDEN_ROLE", "the viewer role is read-only");
  }
}

/**
 * Middleware for /api/organizations/*: checks the caller's organization and role against ROLE_POLICY before the
 * request is validated, so a refusal never depends on the body.
 */
export const orgRoleGate: MiddlewareHandler<AppEnv> = async (c, next) => {
  const route = matchedRoutes(c)
    .filter((r) => r.method === c.req.method)
    .at(-1);
  if (!route) return next(); // no such route: 404 later
  const policy = ROLE_POLICY[`${route.method} ${route.path}`];
  if (policy === "public" || isAdmin(c)) return next();
  const org = c.get("org");
  if (policy === "platform") {
    if (!org) return next(); // its own admin-token check answers
    throw apiError("FORBIDDEN_ROLE", "this operation needs the platform admin token");
  }
  if (!org) {
    throw apiError(
      "AUTH_REQUIRED",
      "this operation needs the admin bearer token, an organization key (x-api-key, with x-api-secret for admin operations) or a member key",
    );
  }
  const orgId = c.req.path.split("/")[3];
  if (org.id !== orgId) throw apiError("ORGANIZATION_FORBIDDEN", "the API key belongs to another organization");
  if (!policy) {
    throw apiError("FORBIDDEN_ROLE", `no role may call ${route.method} ${route.path} with an organization credential`);
  }
  if (policy.includes(org.role)) return next();
  // The organization key without its secret is the developer role; the secret makes it admin.
  if (org.keyKind !== "member" && !org.secretVerified && policy.includes("admin")) {
    throw apiError("API_SECRET_REQUIRED", "this operation needs the admin role: send x-api-secret with the API key");
  }
  throw apiError(
    "FORBIDDEN_ROLE",
    `the ${org.role} role may not ${route.method} ${route.path} (allowed: ${policy.join(", ")})`,
  );
};

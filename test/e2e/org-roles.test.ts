// Organization roles against the real stack: members get their own API keys (hashed, reissued, revoked with the
// member), and every organization route listed in /openapi.json is walked with every role: admin everything,
// developer API use and analytics, viewer read-only. A route missing from EXPECTED fails the test, so a new
// organization route cannot be added without deciding who may call it.

import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { before, describe, it } from "node:test";
import { api, db, stack } from "../support/stack.ts";

const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const uniq = () => Math.random().toString(36).slice(2, 10);
const code = (res: { body: { error?: { code: string } } }) => res.body?.error?.code;
const sha256 = (v: string) => createHash("sha256").update(v).digest("hex");

type Role = "admin" | "developer" | "viewer";
const ROLES: Role[] = ["admin", "developer", "viewer"];
const ALL: Role[] = ROLES;
const WORK: Role[] = ["admin", "developer"];
const ADMIN: Role[] = ["admin"];

/** Who may call each organization route (the test's own copy of the rules, from the supplement's role text). */
const EXPECTED: Record<string, Role[] | "public" | "platform"> = {
  "POST /api/organizations": "platform",
  "GET /api/organizations/{id}": ALL,
  "GET /api/organizations/{id}/branding": "public",
  "PATCH /api/organizations/{id}": ADMIN,
  "POST /api/organizations/{id}/rotate-key": ADMIN,
  "GET /api/organizations/{id}/stats": ALL,
  "POST /api/organizations/{id}/members": ADMIN,
  "GET /api/organizations/{id}/members": ALL,
  "PATCH /api/organizations/{id}/members/{memberId}": ADMIN,
  "DELETE /api/organizations/{id}/members/{memberId}": ADMIN,
  "POST /api/organizations/{id}/members/{memberId}/key": ADMIN,
  "POST /api/organizations/{id}/domain": ADMIN,
  "POST /api/organizations/{id}/domain/verify": ADMIN,
  "POST /api/organizations/{id}/agents": WORK,
  "GET /api/organizations/{id}/agents/search": ALL,
  "GET /api/organizations/{id}/reputation-sharing": ALL,
  "PATCH /api/organizations/{id}/reputation-sharing": ADMIN,
  "POST /api/organizations/{id}/webhooks": ADMIN,
  "GET /api/organizations/{id}/webhooks": ALL,
  "DELETE /api/organizations/{id}/webhooks/{webhookId}": ADMIN,
  "GET /api/organizations/{id}/webhooks/{webhookId}/deliveries": ALL,
};

interface Org {
  id: string;
  apiKey: string;
  apiSecret: string;
}

async function createOrg(): Promise<Org> {
  const res = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name: `Roles ${uniq()}`, subdomain: `roles-${uniq()}`, plan: "growth" },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body;
}

async function addMember(o: Org, role: Role) {
  const res = await api("POST", `/api/organizations/${o.id}/members`, {
    headers: admin,
    body: { email: `${role}-${uniq()}@example.com`, role },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.match(res.body.apiKey, /^ah_member_[A-Za-z0-9_-]{43}$/);
  return res.body as { id: string; apiKey: string; role: Role };
}

/** Every organization route in the published OpenAPI document, as "METHOD /path". */
async function organizationRoutes(): Promise<string[]> {
  const doc = (await api("GET", "/openapi.json")).body as { paths: Record<string, Record<string, unknown>> };
  const out: string[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith("/api/organizations")) continue;
    for (const method of Object.keys(ops)) out.push(`${method.toUpperCase()} ${path}`);
  }
  return out.sort();
}

/**
 * Calls a route as `headers`. Bodies are deliberately invalid and other ids do not exist, so an allowed call is
 * answered by validation or lookup (400/404/...) and changes nothing; a refused one is 401/403 before that.
 */
function call(route: string, orgId: string, headers: Record<string, string>) {
  const [method, template] = route.split(" ") as [string, string];
  const path = template.replace("{id}", orgId).replace(/\{(\w+)\}/g, (_m, name) => `missing-${name}`);
  const hasBody = method !== "GET" && method !== "DELETE";
  return api(method as "GET", path, { headers, ...(hasBody ? { body: { notAField: true } } : {}) });
}

describe("organization roles", () => {
  let o: Org;
  const keys = {} as Record<Role, string>;

  before(async () => {
    o = await createOrg();
    for (const role of ROLES) keys[role] = (await addMember(o, role)).apiKey;
  });

  it("walks every organization route in /openapi.json with every role: allowed, or 403 FORBIDDEN_ROLE", async () => {
    const routes = await organizationRoutes();
    assert.ok(routes.length >= Object.keys(EXPECTED).length - 0, routes.join("\n"));
    const missing = routes.filter((r) => !(r in EXPECTED));
    assert.deepEqual(missing, [], "organization routes without a role expectation");
    const stale = Object.keys(EXPECTED).filter((r) => !routes.includes(r));
    assert.deepEqual(stale, [], "expectations for routes that no longer exist");

    const failures: string[] = [];
    for (const route of routes) {
      const rule = EXPECTED[route]!;
      for (const role of ROLES) {
        const res = await call(route, o.id, { "x-api-key": keys[role] });
        const allowed = rule === "public" || (Array.isArray(rule) && rule.includes(role));
        if (allowed && (res.status === 401 || res.status === 403)) {
          failures.push(`${route} as ${role}: expected allowed, got ${res.status} ${code(res)}`);
        }
        if (!allowed && !(res.status === 403 && code(res) === "FORBIDDEN_ROLE")) {
          failures.push(`${route} as ${role}: expected 403 FORBIDDEN_ROLE, got ${res.status} ${code(res)}`);
        }
      }
      // The platform admin token may call everything; nobody calls a non-public route anonymously.
      const byAdmin = await call(route, o.id, admin);
      if (byAdmin.status === 401 || byAdmin.status === 403)
        failures.push(`${route} as platform admin: ${byAdmin.status}`);
      const anonymous = await call(route, o.id, {});
      if (rule !== "public" && anonymous.status !== 401) {
        failures.push(`${route} anonymously: expected 401, got ${anonymous.status} ${code(anonymous)}`);
      }
    }
    assert.deepEqual(failures, []);
  });

  it("the organization key is the developer role, with its secret the admin role; other organizations get 403", async () => {
    const other = await createOrg();
    const keyAlone = { "x-api-key": o.apiKey };
    const keySecret = { "x-api-key": o.apiKey, "x-api-secret": o.apiSecret };
    assert.equal((await api("GET", `/api/organizations/${o.id}/stats`, { headers: keyAlone })).status, 200);
    const rotate = await api("POST", `/api/organizations/${o.id}/rotate-key`, { headers: keyAlone });
    assert.equal(rotate.status, 401);
    assert.equal(code(rotate), "API_SECRET_REQUIRED");
    const members = await api("POST", `/api/organizations/${o.id}/members`, {
      headers: keySecret,
      body: { email: `k-${uniq()}@example.com`, role: "viewer" },
    });
    assert.equal(members.status, 201, JSON.stringify(members.body));
    for (const headers of [{ "x-api-key": o.apiKey }, { "x-api-key": keys.admin }]) {
      const res = await api("GET", `/api/organizations/${other.id}`, { headers });
      assert.equal(res.status, 403);
      assert.equal(code(res), "ORGANIZATION_FORBIDDEN");
    }
    // A member key with a secret is refused rather than ignored.
    const mixed = await api("GET", `/api/organizations/${o.id}`, {
      headers: { "x-api-key": keys.developer, "x-api-secret": o.apiSecret },
    });
    assert.equal(mixed.status, 401);
    assert.equal(code(mixed), "INVALID_API_SECRET");
  });

  it("member keys: usable on the general API with their role, hashed, reissued and revoked with the member", async () => {
    const dev = await addMember(o, "developer");
    const viewer = await addMember(o, "viewer");
    const stored = await db.query("select kind, member_id, prefix from api.org_credential where key_hash = $1", [
      sha256(dev.apiKey),
    ]);
    assert.equal(stored.rowCount, 1);
    assert.equal(stored.rows[0].kind, "member");
    assert.equal(stored.rows[0].member_id, dev.id);
    const raw = JSON.stringify((await db.query("select * from api.org_credential where org_id = $1", [o.id])).rows);
    assert.ok(!raw.includes(dev.apiKey));

    // General API: both roles read (scoped to the organization); only the developer writes.
    for (const k of [dev.apiKey, viewer.apiKey]) {
      const list = await api("GET", "/api/agents", { headers: { authorization: `Bearer ${k}` } });
      assert.equal(list.status, 200, JSON.stringify(list.body));
      assert.equal(list.body.pagination.total, 0);
    }
    const viewerWrite = await api("POST", "/api/agents/register", {
      headers: { "x-api-key": viewer.apiKey },
      body: { name: "Viewer agent" },
    });
    assert.equal(viewerWrite.status, 403);
    assert.equal(code(viewerWrite), "FORBIDDEN_ROLE");
    const devWrite = await api("POST", "/api/agents/register", {
      headers: { "x-api-key": dev.apiKey },
      body: { name: "" },
    });
    assert.equal(devWrite.status, 400, JSON.stringify(devWrite.body)); // allowed: answered by validation

    // Reissue: the new key works, the old one stops at once.
    const reissued = await api("POST", `/api/organizations/${o.id}/members/${dev.id}/key`, { headers: admin });
    assert.equal(reissued.status, 200, JSON.stringify(reissued.body));
    assert.notEqual(reissued.body.apiKey, dev.apiKey);
    const old = await api("GET", `/api/organizations/${o.id}`, { headers: { "x-api-key": dev.apiKey } });
    assert.equal(old.status, 401);
    assert.equal(code(old), "INVALID_API_KEY");
    const fresh = await api("GET", `/api/organizations/${o.id}`, { headers: { "x-api-key": reissued.body.apiKey } });
    assert.equal(fresh.status, 200);
    // Removing the member removes its key.
    const removed = await api("DELETE", `/api/organizations/${o.id}/members/${dev.id}`, {
      headers: { "x-api-key": keys.admin },
    });
    assert.equal(removed.status, 200, JSON.stringify(removed.body));
    const gone = await api("GET", `/api/organizations/${o.id}`, { headers: { "x-api-key": reissued.body.apiKey } });
    assert.equal(code(gone), "INVALID_API_KEY");
    const unknownMember = await api("POST", `/api/organizations/${o.id}/members/mem_nope/key`, { headers: admin });
    assert.equal(unknownMember.status, 404);
    assert.equal(code(unknownMember), "MEMBER_NOT_FOUND");
  });

  it("changes a member's role (admin only): the key acts with the new role at once; unknown roles and demoting the last admin are refused", async () => {
    const org = await createOrg();
    const first = await addMember(org, "admin");
    const dev = await addMember(org, "developer");
    const asAdmin = { "x-api-key": first.apiKey };
    const patchRole = (memberId: string, role: unknown, headers: Record<string, string> = asAdmin) =>
      api("PATCH", `/api/organizations/${org.id}/members/${memberId}`, { headers, body: { role } });

    // A developer may not change roles, not even its own.
    const selfPromote = await patchRole(dev.id, "admin", { "x-api-key": dev.apiKey });
    assert.equal(selfPromote.status, 403);
    assert.equal(code(selfPromote), "FORBIDDEN_ROLE");

    // Unknown roles: a clear 400 naming the roles there are; nothing changes.
    for (const role of ["owner", "ADMIN", "", 7]) {
      const res = await patchRole(dev.id, role);
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.ok(["UNKNOWN_ROLE", "VALIDATION_ERROR"].includes(code(res)!), JSON.stringify(res.body));
      if (typeof role === "string") {
        assert.equal(code(res), "UNKNOWN_ROLE");
        assert.match(res.body.error.message, /admin, developer, viewer/);
      }
    }
    const unknownMember = await patchRole("mem_nope", "viewer");
    assert.equal(unknownMember.status, 404);
    assert.equal(code(unknownMember), "MEMBER_NOT_FOUND");

    // The only admin cannot be demoted (by itself or by the platform admin).
    for (const headers of [asAdmin, admin]) {
      const res = await patchRole(first.id, "developer", headers);
      assert.equal(res.status, 409, JSON.stringify(res.body));
      assert.equal(code(res), "LAST_ADMIN");
    }

    // Promote the developer: its key is an admin's from the next request.
    const promoted = await patchRole(dev.id, "admin");
    assert.equal(promoted.status, 200, JSON.stringify(promoted.body));
    assert.equal(promoted.body.role, "admin");
    assert.equal(promoted.body.id, dev.id);
    const rows = await db.query("select role from api.org_member where id = $1", [dev.id]);
    assert.equal(rows.rows[0].role, "admin");
    const nowAdmin = await api("PATCH", `/api/organizations/${org.id}/reputation-sharing`, {
      headers: { "x-api-key": dev.apiKey },
      body: { shareOutbound: true },
    });
    assert.equal(nowAdmin.status, 200, JSON.stringify(nowAdmin.body));

    // Two admins: the first may now be demoted to viewer, and its key becomes read-only at once.
    const demoted = await patchRole(first.id, "viewer", { "x-api-key": dev.apiKey });
    assert.equal(demoted.status, 200, JSON.stringify(demoted.body));
    assert.equal(demoted.body.role, "viewer");
    const viewerWrite = await api("PATCH", `/api/organizations/${org.id}/reputation-sharing`, {
      headers: asAdmin,
      body: { shareOutbound: false },
    });
    assert.equal(viewerWrite.status, 403);
    assert.equal(code(viewerWrite), "FORBIDDEN_ROLE");
    assert.equal((await api("GET", `/api/organizations/${org.id}`, { headers: asAdmin })).status, 200);

    // And the remaining admin is the last one again.
    const last = await patchRole(dev.id, "viewer", { "x-api-key": dev.apiKey });
    assert.equal(last.status, 409);
    assert.equal(code(last), "LAST_ADMIN");
    const members = await api("GET", `/api/organizations/${org.id}/members`, { headers: admin });
    const roles = Object.fromEntries(members.body.members.map((m: { id: string; role: string }) => [m.id, m.role]));
    assert.deepEqual(roles, { [first.id]: "viewer", [dev.id]: "admin" });
  });
});

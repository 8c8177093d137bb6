// app.ts is the route map: the served /openapi.json is walked operation by operation, and each one must be found by
// reading app.ts (a mount line: prefix and router) and then the router's module, which sits in the folder under
// api/src/routes/ that the operation's tag names. The mounts are recorded by calling app.ts's own mountRoutes; each
// mounted router is matched (by identity) to the route module exporting it.
import assert from "node:assert/strict";
import { readdirSync, realpathSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { mergePath } from "hono/utils/url";
import { repoRoot } from "../../scripts/lib/chain.ts";
import { api, stack } from "../support/stack.ts";

const apiSrc = realpathSync(join(repoRoot, "api", "src"));
const routesDir = join(apiSrc, "routes");
const METHODS = new Set(["get", "put", "post", "delete", "patch", "head", "options", "trace"]);

/** A router of @hono/zod-openapi (not a dependency of the tests: recognized by its registry). */
interface DocumentedRouter {
  openAPIRegistry: { definitions: { type: string; route?: { method: string; path: string } }[] };
}
const isDocumented = (value: unknown): value is DocumentedRouter =>
  typeof value === "object" && value !== null && "openAPIRegistry" in value;

interface Document {
  paths: Record<string, Record<string, { tags?: string[] }>>;
}

/** Every router exported by a module under routes/, with the folder of that module. */
async function routerHomes(): Promise<Map<unknown, string>> {
  const homes = new Map<unknown, string>();
  const files = (readdirSync(routesDir, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts"));
  for (const file of files) {
    const mod = (await import(join(routesDir, file))) as Record<string, unknown>;
    const folder = file.includes("/") ? file.split("/")[0]! : "(top level)";
    for (const value of Object.values(mod)) if (isDocumented(value) && !homes.has(value)) homes.set(value, folder);
  }
  return homes;
}

/** "METHOD /path" -> the folder whose router app.ts mounts there, for every documented operation of the map. */
async function operationsOfRouteMap(dev: boolean): Promise<Map<string, string>> {
  const { mountRoutes } = (await import(join(apiSrc, "app.ts"))) as typeof import("@agenthub/api/app");
  const homes = await routerHomes();
  const mounts: { prefix: string; routes: unknown }[] = [];
  mountRoutes({ route: (prefix, routes) => mounts.push({ prefix, routes }) }, { dev });
  assert.ok(mounts.length > 20, `app.ts mounts ${mounts.length} routers`);
  const operations = new Map<string, string>();
  for (const { prefix, routes } of mounts) {
    if (!isDocumented(routes)) continue; // pages (claim page), not documented operations
    const folder = homes.get(routes);
    assert.ok(folder, `a router mounted at ${prefix} is not exported by any module under api/src/routes`);
    for (const d of routes.openAPIRegistry.definitions) {
      if (d.type !== "route" || !d.route) continue;
      const key = `${d.route.method.toUpperCase()} ${mergePath(prefix, d.route.path)}`;
      assert.ok(!operations.has(key), `${key} is mounted twice`);
      operations.set(key, folder);
    }
  }
  return operations;
}

describe("route map", () => {
  it("every served operation is mounted in app.ts from the folder its tag names", async () => {
    const res = await api<Document>("GET", "/openapi.json");
    assert.equal(res.status, 200);
    const served = new Map<string, string>();
    for (const [path, item] of Object.entries(res.body.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (!METHODS.has(method)) continue;
        assert.equal(op.tags?.length, 1, `${method.toUpperCase()} ${path} has exactly one tag`);
        served.set(`${method.toUpperCase()} ${path}`, op.tags![0]!);
      }
    }
    assert.ok(served.size > 90, `${served.size} operations served`);

    const mapped = await operationsOfRouteMap(stack.env.LOCAL_CHAIN === "true");
    const misplaced = [...served]
      .filter(([op, tag]) => mapped.get(op) !== tag)
      .map(
        ([op, tag]) =>
          `${op} (tag ${tag}) ${mapped.has(op) ? `is mounted from routes/${mapped.get(op)}/` : "is not in app.ts's route map"}`,
      );
    assert.deepEqual(misplaced, []);
    const unserved = [...mapped.keys()].filter((op) => !served.has(op));
    assert.deepEqual(unserved, [], "every operation app.ts mounts is in the served document");
  });
});

// app.ts is the route map and each feature folder owns its operations: every documented operation is defined by a
// router module in api/src/routes/<tag>/ (the folder its OpenAPI tag names), so "where is POST /api/stake?" has one
// answer. The routers are read from their modules (no server needed); a router that mounts others (agents/index.ts)
// lists their operations too, so an operation passes when any module defining it sits in its tag's folder.
import assert from "node:assert/strict";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { OpenAPIHono } from "@hono/zod-openapi";

const routesDir = new URL("../src/routes", import.meta.url).pathname;

interface Operation {
  method: string;
  path: string;
  tag: string;
}

async function operationsByModule(): Promise<Map<string, Operation[]>> {
  const files = (readdirSync(routesDir, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts"));
  const out = new Map<string, Operation[]>();
  for (const file of files) {
    const mod = (await import(join(routesDir, file))) as Record<string, unknown>;
    const ops: Operation[] = [];
    for (const value of Object.values(mod)) {
      if (!(value instanceof OpenAPIHono)) continue;
      for (const d of value.openAPIRegistry.definitions) {
        if (d.type !== "route") continue;
        ops.push({ method: d.route.method, path: d.route.path, tag: d.route.tags?.[0] ?? "(untagged)" });
      }
    }
    if (ops.length) out.set(file, ops);
  }
  return out;
}

describe("route map", () => {
  it("every operation lives in the folder its tag names", async () => {
    const modules = await operationsByModule();
    const homes = new Map<string, { tag: string; folders: Set<string> }>();
    for (const [file, ops] of modules) {
      const folder = file.includes("/") ? file.split("/")[0]! : "(top level)";
      for (const op of ops) {
        const key = `${op.method.toUpperCase()} ${op.path}`;
        const home = homes.get(key) ?? { tag: op.tag, folders: new Set<string>() };
        home.folders.add(folder);
        homes.set(key, home);
      }
    }
    assert.ok(homes.size > 80, `found ${homes.size} operations`);
    const misplaced = [...homes]
      .filter(([, h]) => !h.folders.has(h.tag))
      .map(([op, h]) => `${op} (tag ${h.tag}) is defined in ${[...h.folders].join(", ")}`);
    assert.deepEqual(misplaced, []);
  });
});

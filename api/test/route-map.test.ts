// Each feature folder owns its operations: every operation a router module under api/src/routes/<folder>/ defines
// carries the tag <folder>, and a router composes only routers of its own folder, so the folder that defines an
// operation is the one its tag names. app.ts mounts the folders' routers at their prefixes; the served document is
// checked against that map by test/e2e/route-map.test.ts. Read from the modules: no server needed.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { OpenAPIHono } from "@hono/zod-openapi";

const routesDir = new URL("../src/routes", import.meta.url).pathname;
const files = (readdirSync(routesDir, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts"));
const folderOf = (file: string) => (file.includes("/") ? file.split("/")[0]! : "(top level)");

describe("route map", () => {
  it("every operation is defined in the folder its tag names", async () => {
    let count = 0;
    const misplaced: string[] = [];
    for (const file of files) {
      const mod = (await import(join(routesDir, file))) as Record<string, unknown>;
      for (const value of Object.values(mod)) {
        if (!(value instanceof OpenAPIHono)) continue;
        for (const d of value.openAPIRegistry.definitions) {
          if (d.type !== "route") continue;
          count++;
          const tag = d.route.tags?.[0] ?? "(untagged)";
          if (tag !== folderOf(file))
            misplaced.push(`${d.route.method.toUpperCase()} ${d.route.path} (tag ${tag}) in ${file}`);
        }
      }
    }
    assert.ok(count > 80, `found ${count} operations`);
    assert.deepEqual(misplaced, []);
  });

  it("a router composes only routers of its own folder", () => {
    const crossing: string[] = [];
    for (const file of files) {
      const source = readFileSync(join(routesDir, file), "utf8");
      const importedFrom = new Map<string, string>();
      for (const m of source.matchAll(/import\s*(?:type\s*)?\{([^}]*)\}\s*from\s*"([^"]+)"/g)) {
        for (const name of m[1]!.split(","))
          importedFrom.set(
            name
              .trim()
              .split(/\s+as\s+/)
              .pop()!,
            m[2]!,
          );
      }
      for (const m of source.matchAll(/\.route\(\s*"[^"]*"\s*,\s*(\w+)\s*\)/g)) {
        const from = importedFrom.get(m[1]!);
        if (from !== undefined && !from.startsWith("./")) crossing.push(`${file} mounts ${m[1]} from ${from}`);
      }
    }
    assert.deepEqual(crossing, []);
  });
});

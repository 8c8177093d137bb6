// The shape of api/src (docs/architecture.md): only stores query the database, the runtime imports form no cycle,
// no module imports a layer above its own, and the server does not depend on its client (the SDK). Type-only imports
// are left out of the layer rules (they vanish at run time), not out of the SDK rule.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { describe, it } from "node:test";

const src = new URL("../src", import.meta.url).pathname;
const files = (readdirSync(src, { recursive: true }) as string[])
  .filter((f) => f.endsWith(".ts"))
  .map((f) => join(src, f));

/** Higher imports lower; a folder (or top-level file) not listed is a bug in this table. */
const RANK: Record<string, number> = {
  "main.ts": 10,
  "index.ts": 10,
  "server.ts": 10,
  "app.ts": 9,
  routes: 8,
  jobs: 7,
  payments: 6,
  paymaster: 6,
  mints: 6,
  "use-cases": 5,
  webhooks: 4,
  auth: 4,
  ops: 4,
  stores: 3,
  db: 2,
  domain: 1,
  lib: 1,
  "context.ts": 0,
  "env.ts": 0,
  "errors.ts": 0,
  "error-docs.ts": 0,
};
const layer = (file: string) => relative(src, file).split("/")[0]!;

/** Runtime imports of `file` inside api/src (named imports that are all `type ...` count as type-only). */
function runtimeImports(file: string): string[] {
  const text = readFileSync(file, "utf8");
  const out: string[] = [];
  for (const m of text.matchAll(/^(?:import|export)\s+(type\s+)?([^;]*?)\s+from\s+"(\.[^"]+)"/gms)) {
    if (m[1]) continue;
    const names = m[2]!.trim();
    if (/^\{[^}]*\}$/s.test(names)) {
      const parts = names
        .slice(1, -1)
        .split(",")
        .map((p) => p.trim())
        .filter(Boolean);
      if (parts.every((p) => p.startsWith("type "))) continue;
    }
    out.push(resolve(dirname(file), m[3]!));
  }
  return out.filter((t) => files.includes(t));
}

const apiDir = new URL("..", import.meta.url).pathname;

describe("api/src layers", () => {
  it("never imports @agenthub/sdk (the shared protocol is @agenthub/common/protocol) nor depends on it", () => {
    const tests = (readdirSync(join(apiDir, "test"), { recursive: true }) as string[])
      .filter((f) => f.endsWith(".ts"))
      .map((f) => join(apiDir, "test", f));
    const importers = [...files, ...tests]
      .filter((f) => /(from\s+|import\()"@agenthub\/sdk[/"]/.test(readFileSync(f, "utf8")))
      .map((f) => relative(apiDir, f));
    assert.deepEqual(importers, []);
    const manifest = JSON.parse(readFileSync(join(apiDir, "package.json"), "utf8"));
    const deps = { ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies };
    assert.equal(deps["@agenthub/sdk"], undefined);
  });

  it("queries the database only from stores (db/ and ops/, with its own pool, aside)", () => {
    const outside = files
      .filter((f) => !["stores", "db", "ops"].includes(layer(f)))
      .filter((f) => /\.query(<|\()/.test(readFileSync(f, "utf8")))
      .map((f) => relative(src, f));
    assert.deepEqual(outside, []);
  });

  it("keeps every route file small (at most 200 lines: definitions and short handlers; rules live in use cases)", () => {
    const long = files
      .filter((f) => layer(f) === "routes")
      .map((f) => ({ file: relative(src, f), lines: readFileSync(f, "utf8").split("\n").length - 1 }))
      .filter((f) => f.lines > 200);
    assert.deepEqual(long, []);
  });

  it("knows every top-level module's layer", () => {
    const unknown = [...new Set(files.map(layer))].filter((l) => !(l in RANK));
    assert.deepEqual(unknown, []);
  });

  it("imports no layer above a module's own", () => {
    const up: string[] = [];
    for (const f of files) {
      for (const t of runtimeImports(f)) {
        if (layer(f) !== layer(t) && RANK[layer(f)]! < RANK[layer(t)]!)
          up.push(`${relative(src, f)} -> ${relative(src, t)}`);
      }
    }
    assert.deepEqual(up, []);
  });

  it("has no import cycle", () => {
    const edges = new Map(files.map((f) => [f, runtimeImports(f)]));
    const state = new Map<string, "open" | "done">();
    const cycles: string[] = [];
    const visit = (f: string, path: string[]) => {
      if (state.get(f) === "done") return;
      if (state.get(f) === "open") {
        cycles.push([...path.slice(path.indexOf(f)), f].map((p) => relative(src, p)).join(" -> "));
        return;
      }
      state.set(f, "open");
      for (const t of edges.get(f)!) visit(t, [...path, f]);
      state.set(f, "done");
    };
    for (const f of files) visit(f, []);
    assert.deepEqual(cycles, []);
  });
});

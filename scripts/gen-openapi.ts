// Generates the SDK's types from the API's own OpenAPI document (run by `pnpm run compile`, after gen-abis).
// The document is what `GET /openapi.json` serves: the real `createApp` answers it in memory, with placeholder
// dependencies (describing the routes touches no database, chain or relayer; any other access fails loudly).
// Output (gitignored, like the ABIs): sdk/src/generated/openapi.json and sdk/src/generated/openapi.ts.
import { mkdirSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { createRegistry } from "@agenthub/common/metrics";
import { sdkTypesFor } from "./lib/openapi-types.ts";

const root = new URL("..", import.meta.url).pathname;
const outDir = join(root, "sdk", "src", "generated");

/** A dependency object that only has what describing the routes needs; anything else throws with its path. */
function placeholder(path: string, known: Record<string, unknown>): unknown {
  return new Proxy(known, {
    get(target, key) {
      if (typeof key === "symbol" || key in target) return target[key as string];
      if (key === "then") return undefined;
      throw new Error(`gen-openapi: ${path}.${key} is not available while generating the document`);
    },
  });
}

const silent = () => {};
const deps = placeholder("deps", {
  // LOCAL_CHAIN mounts the development faucet: the document is the one a local stack serves (a superset).
  env: placeholder("deps.env", {
    LOCAL_CHAIN: true,
    PUBLIC_URL: "http://localhost:3000",
    TRUST_PROXY: 0,
    CORS_ALLOWED_ORIGINS: undefined,
  }),
  ops: placeholder("deps.ops", { registry: createRegistry("openapi_gen") }),
  // The document is a public endpoint, counted against the caller's allowance: this one in-memory caller has it all.
  rateLimiter: placeholder("deps.rateLimiter", {
    hitLeased: async (_key: string, limits: { max: number }[]) => {
      const max = limits[0]?.max ?? 0;
      return { allowed: true, limit: max, remaining: max, reset: Math.floor(Date.now() / 1000) + 60 };
    },
  }),
  logger: { debug: silent, info: silent, warn: silent, error: silent },
});

const { createApp } = await import("@agenthub/api/app");
const res = await createApp(deps as never).request("/openapi.json");
if (res.status !== 200) throw new Error(`GET /openapi.json answered ${res.status}: ${await res.text()}`);
const document = (await res.json()) as { paths: Record<string, unknown> };

const types = await sdkTypesFor(document);
mkdirSync(outDir, { recursive: true });
writeFileSync(join(outDir, "openapi.json"), `${JSON.stringify(document, null, 2)}\n`);
writeFileSync(join(outDir, "openapi.ts"), types);
console.log(
  `generated SDK types for ${Object.keys(document.paths).length} paths in ${relative(root, join(outDir, "openapi.ts"))}`,
);

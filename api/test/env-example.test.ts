// .env.example names every variable the API, relayer, indexer and `npm start` read, with the defaults their schemas
// apply.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { relayerEnvSchema } from "@agenthub/relayer/env";
import type { z } from "zod";
import { indexerEnvSchema } from "../../indexer/env.ts";
import { stackEnvSchema } from "../../scripts/lib/stack-env.ts";
import { apiEnvSchema } from "../src/env.ts";

const repo = fileURLToPath(new URL("../..", import.meta.url)).replace(/\/$/, "");
const documented = new Map(
  [...readFileSync(`${repo}/.env.example`, "utf8").matchAll(/^# ([A-Z][A-Z0-9_]*)=(.*)$/gm)].map((m) => [
    m[1]!,
    m[2]!.replace("<repo>", repo),
  ]),
);
const services: Record<string, z.ZodObject> = {
  api: apiEnvSchema,
  relayer: relayerEnvSchema,
  indexer: indexerEnvSchema,
};
const schemas: Record<string, z.ZodObject> = { ...services, "npm start": stackEnvSchema };
/** Names the services read too (DATABASE_URL, RPC_URL, PORT, ...): the file shows the services' default there. */
const serviceNames = new Set(Object.values(services).flatMap((schema) => Object.keys(schema.shape)));

describe(".env.example", () => {
  it("documents every variable of every service", () => {
    for (const [service, schema] of Object.entries(schemas)) {
      const missing = Object.keys(schema.shape).filter((name) => !documented.has(name));
      assert.deepEqual(missing, [], `${service} variables missing from .env.example`);
    }
  });

  it("shows each schema's default, and no value where there is none", () => {
    for (const [service, schema] of Object.entries(schemas)) {
      for (const [name, field] of Object.entries(schema.shape)) {
        if (schema === stackEnvSchema && serviceNames.has(name)) continue;
        const parsed = (field as z.ZodType).safeParse(undefined);
        const fallback = parsed.success && parsed.data !== undefined ? String(parsed.data) : "";
        assert.equal(documented.get(name), fallback, `${service} ${name}`);
      }
    }
  });
});

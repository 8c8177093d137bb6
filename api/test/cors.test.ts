// CORS: which origins a browser may call the API from (CORS_ALLOWED_ORIGINS parsed by the env schema), and the
// headers preflights and answers carry.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Hono } from "hono";
import { apiEnvSchema } from "../src/env.ts";
import { corsMiddleware, originAllowed } from "../src/lib/cors.ts";

const parse = (value: string | undefined) =>
  apiEnvSchema.shape.CORS_ALLOWED_ORIGINS.safeParse(value) as { success: boolean; data?: string[] | "*" };

describe("CORS", () => {
  it("allows the deployment's own origin and localhost by default, nothing else", () => {
    const env = { CORS_ALLOWED_ORIGINS: undefined, PUBLIC_URL: "https://hub.example/base" };
    assert.equal(originAllowed("https://hub.example", env), true);
    assert.equal(originAllowed("http://localhost:5173", env), true);
    assert.equal(originAllowed("http://127.0.0.1", env), true);
    assert.equal(originAllowed("https://evil.example", env), false);
    assert.equal(originAllowed("http://localhost.evil.example", env), false);
    assert.equal(originAllowed("https://hub.example:8443", env), false);
  });

  it("parses a configured list, '*', and refuses what is not an origin", () => {
    assert.deepEqual(parse("https://a.example, http://b.example:8080").data, [
      "https://a.example",
      "http://b.example:8080",
    ]);
    assert.equal(parse("*").data, "*");
    assert.equal(parse(undefined).data, undefined);
    assert.equal(parse("https://a.example/path").success, false);
    assert.equal(parse("a.example").success, false);
    const env = { CORS_ALLOWED_ORIGINS: ["https://a.example"], PUBLIC_URL: "http://localhost:3000" };
    assert.equal(originAllowed("https://a.example", env), true);
    assert.equal(originAllowed("http://localhost:3000", env), false, "a configured list replaces the defaults");
  });

  it("answers preflights for allowed origins with the credential headers, and omits them for others", async () => {
    const app = new Hono();
    app.use("*", corsMiddleware({ CORS_ALLOWED_ORIGINS: ["https://app.example"], PUBLIC_URL: "http://x" }));
    app.get("/api/config", (c) => c.json({ ok: true }));
    const preflight = await app.request("/api/config", {
      method: "OPTIONS",
      headers: {
        Origin: "https://app.example",
        "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "x-api-key, x-api-secret, authorization, x-payment",
      },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example");
    const allowed = preflight.headers.get("access-control-allow-headers")?.toLowerCase() ?? "";
    for (const h of ["x-api-key", "x-api-secret", "authorization", "x-payment", "payment-signature"]) {
      assert.ok(allowed.includes(h), `${h} not allowed: ${allowed}`);
    }
    const get = await app.request("/api/config", { headers: { Origin: "https://app.example" } });
    assert.equal(get.headers.get("access-control-allow-origin"), "https://app.example");
    assert.match(get.headers.get("access-control-expose-headers") ?? "", /X-RateLimit-Remaining/);
    const other = await app.request("/api/config", { headers: { Origin: "https://evil.example" } });
    assert.equal(other.status, 200);
    assert.equal(other.headers.get("access-control-allow-origin"), null);
  });
});

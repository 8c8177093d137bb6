// API reference at /docs, served entirely by this server: Swagger UI's pinned build (swagger-ui-dist) from
// node_modules, no CDN, no fonts, no inline script. Works on a machine without internet.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Hono } from "hono";
import type { AppEnv } from "../context.ts";

const distDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"));
const { version } = JSON.parse(readFileSync(join(distDir, "package.json"), "utf8")) as { version: string };
/** Versioned asset path: a new Swagger UI version gets new URLs, so assets can be cached forever. */
const assetBase = `/docs/assets/${version}`;

const initScript = `window.ui = SwaggerUIBundle({
  url: "/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  docExpansion: "list",
  validatorUrl: null,
  presets: [SwaggerUIBundle.presets.apis],
});
`;

const assets: Record<string, { type: string; body: () => string | Buffer }> = {
  "swagger-ui.css": { type: "text/css; charset=utf-8", body: () => readFileSync(join(distDir, "swagger-ui.css")) },
  "swagger-ui-bundle.js": {
    type: "text/javascript; charset=utf-8",
    body: () => readFileSync(join(distDir, "swagger-ui-bundle.js")),
  },
  "favicon-32x32.png": { type: "image/png", body: () => readFileSync(join(distDir, "favicon-32x32.png")) },
  "init.js": { type: "text/javascript; charset=utf-8", body: () => initScript },
};
const loaded = new Map<string, string | Buffer>();

const page = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>AgentHub API reference</title>
<link rel="stylesheet" href="${assetBase}/swagger-ui.css">
<link rel="icon" type="image/png" href="${assetBase}/favicon-32x32.png">
</head><body>
<div id="swagger-ui"></div>
<script src="${assetBase}/swagger-ui-bundle.js"></script>
<script src="${assetBase}/init.js"></script>
</body></html>
`;

/** The browser itself refuses anything from another origin (Swagger UI sets inline styles, nothing else inline). */
const CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; " +
  "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'";

export const docsRoutes = new Hono<AppEnv>()
  .get("/", (c) => {
    c.header("content-security-policy", CSP);
    c.header("cache-control", "no-cache");
    return c.html(page);
  })
  .get(`/assets/${version}/:file`, (c) => {
    const file = c.req.param("file");
    const asset = Object.hasOwn(assets, file) ? assets[file] : undefined;
    if (!asset) return c.notFound();
    let body = loaded.get(file);
    if (body === undefined) {
      body = asset.body();
      loaded.set(file, body);
    }
    c.header("content-type", asset.type);
    c.header("cache-control", "public, max-age=31536000, immutable");
    c.header("x-content-type-options", "nosniff");
    return c.body(typeof body === "string" ? body : new Uint8Array(body));
  });

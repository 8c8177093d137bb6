// The web app (web/, built by Vite into WEB_DIST_DIR) served at the API's own origin: hashed assets under /assets/
// cached for a year, and index.html for every page URL a browser asks for (the app routes on the client). The HTML is
// the same bytes for everyone: no user data in it, no inline script, and a CSP that allows this origin only.
// Without a build, GET / still answers a static front door that says what is running and where the docs are.
import { existsSync, readFileSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../context.ts";

/** Only this origin: scripts and styles from built files, data from this API, wallets talk through the extension. */
export const WEB_APP_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
  ".json": "application/json; charset=utf-8",
  ".woff2": "font/woff2",
  ".map": "application/json; charset=utf-8",
};

/** Paths the API owns: never answered with the app's HTML (an unknown /api path stays a JSON 404). */
const API_PREFIXES = ["/api/", "/ipfs/", "/claim/", "/docs", "/openapi.json", "/health", "/ready", "/metrics"];

const FRONT_DOOR = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>AgentHub</title></head>
<body>
<main>
<h1>AgentHub API</h1>
<p>This server runs the AgentHub API: on-chain identity, stake, paid runs and reputation for AI agents.</p>
<ul>
<li><a href="/docs">API reference (/docs)</a></li>
<li><a href="/openapi.json">OpenAPI document (/openapi.json)</a></li>
<li><a href="/api/config">Deployment: chain and contracts (/api/config)</a></li>
<li><a href="/health">Health (/health)</a></li>
</ul>
<p>The web app is not built on this server: run <code>pnpm --filter @agenthub/web build</code> (npm start builds it
when missing) and reload.</p>
</main>
</body></html>
`;

/** The built app in WEB_DIST_DIR: index.html and assets read once and kept (asset names change with content). */
class BuiltApp {
  readonly assetsDir: string;
  private readonly indexFile: string;
  private readonly assets = new Map<string, Buffer>();
  private index: string | undefined;

  constructor(distDir: string) {
    this.indexFile = join(distDir, "index.html");
    this.assetsDir = join(distDir, "assets");
  }

  /** An asset by its path under /assets/, or undefined (also for any path that leaves the folder). */
  asset(name: string): Buffer | undefined {
    const file = normalize(join(this.assetsDir, name));
    if (!file.startsWith(this.assetsDir + sep)) return undefined;
    let body = this.assets.get(file);
    if (!body && existsSync(file)) {
      body = readFileSync(file);
      this.assets.set(file, body);
    }
    return body;
  }

  /** index.html, or undefined while the app is not built (looked for again on the next request). */
  html(): string | undefined {
    if (this.index === undefined && existsSync(this.indexFile)) this.index = readFileSync(this.indexFile, "utf8");
    return this.index;
  }
}

const builds = new Map<string, BuiltApp>();

function builtApp(c: Context<AppEnv>): BuiltApp {
  const distDir = c.get("deps").env.WEB_DIST_DIR;
  const app = builds.get(distDir) ?? new BuiltApp(distDir);
  builds.set(distDir, app);
  return app;
}

const page = (c: Context<AppEnv>, body: string, cacheControl = "no-cache") => {
  c.header("cache-control", cacheControl);
  c.header("content-security-policy", WEB_APP_CSP);
  c.header("x-content-type-options", "nosniff");
  c.header("referrer-policy", "no-referrer");
  return c.html(body);
};

/** Hashed assets under /assets/, and the app's HTML for page URLs (the front door at / before a build). */
export const webApp: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "GET" && c.req.method !== "HEAD") return next();
  const app = builtApp(c);
  const path = c.req.path;
  if (path.startsWith("/assets/")) {
    const name = path.slice("/assets/".length);
    const body = app.asset(name);
    if (!body) return next();
    c.header("cache-control", "public, max-age=31536000, immutable");
    c.header("content-type", TYPES[extname(name)] ?? "application/octet-stream");
    c.header("x-content-type-options", "nosniff");
    return c.body(new Uint8Array(body));
  }
  if (API_PREFIXES.some((p) => path === p.replace(/\/$/, "") || path.startsWith(p))) return next();
  // A page URL: browsers ask for text/html; a script or curl without it gets the API's JSON 404.
  if (path !== "/" && !(c.req.header("accept") ?? "").includes("text/html")) return next();
  const index = app.html();
  if (index === undefined) return path === "/" ? page(c, FRONT_DOOR) : next();
  return page(c, index);
};

/**
 * The app's HTML for a page the API owns the path of (the claim link, /claim/<code>), or undefined while the app is
 * not built. Same bytes and CSP as every app page; `cacheControl` lets a page keep itself out of caches.
 */
export function appPage(c: Context<AppEnv>, cacheControl: string): Response | undefined {
  const index = builtApp(c).html();
  return index === undefined ? undefined : page(c, index, cacheControl);
}

// White-label sites, routed by Host: a GET to <subdomain>.<base domain> or to an organization's verified custom
// domain for one of the site's pages (/, /agents, /agents/<id>, /claim/<code>, /brand.css) is answered with that organization's
// branded page; everything else on those hosts (the API under /api, /docs, /openapi.json, /health) passes through
// unchanged, so a site's pages talk to the API on their own origin.
import { isIP } from "node:net";
import type { Context, MiddlewareHandler } from "hono";
import type { AppEnv } from "../../context.ts";
import { enforceRateLimit, LIMITS } from "../../lib/rate-limit.ts";
import { baseDomain, siteOrigin } from "../../lib/site-url.ts";
import type { OrgRow } from "../../stores/organizations.ts";
import { siteAgent } from "../../use-cases/organizations/site-agent.ts";
import { siteDirectory } from "../../use-cases/organizations/site-directory.ts";
import { siteLandingFacts, siteOrganization } from "../../use-cases/organizations/white-label-site.ts";
import { CLAIM_CODE_PATTERN } from "../claim-page.ts";
import { type Brand, brandCss, brandOf, pageCsp } from "./brand.ts";
import { agentPage, claimPage, directoryPage, landingPage, notFoundPage } from "./pages.ts";

const SUBDOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{1,61}[a-z0-9])$/;
const DOMAIN = /^(?!-)[a-z0-9-]{1,63}(?<!-)(\.(?!-)[a-z0-9-]{1,63}(?<!-))+$/;
const PAGE_SIZE = 50;

export type SiteHost = { kind: "subdomain"; subdomain: string; host: string } | { kind: "domain"; host: string };

/** What a Host header names: an organization's subdomain, a candidate custom domain, or the service itself (null). */
export function siteHostOf(
  hostHeader: string | undefined,
  env: { PUBLIC_URL: string; ORG_BASE_DOMAIN?: string },
): SiteHost | null {
  if (!hostHeader) return null;
  let host = hostHeader.trim().toLowerCase();
  if (host.startsWith("[")) return null; // an IPv6 literal
  host = host.replace(/:\d{1,5}$/, "").replace(/\.$/, "");
  if (!host || isIP(host)) return null;
  const base = baseDomain(env);
  if (host === base || host === new URL(env.PUBLIC_URL).hostname.toLowerCase()) return null;
  if (host.endsWith(`.${base}`)) {
    const label = host.slice(0, -base.length - 1);
    return SUBDOMAIN_LABEL.test(label) ? { kind: "subdomain", subdomain: label, host } : null;
  }
  return DOMAIN.test(host) && host.length <= 253 ? { kind: "domain", host } : null;
}

/** The paths a site serves; any other path on a site's host goes on to the API's own routes. */
const isSitePath = (path: string) =>
  path === "/" ||
  path === "/agents" ||
  path === "/brand.css" ||
  /^\/agents\/[^/]+$/.test(path) ||
  /^\/claim\/[^/]*$/.test(path);

function pageHeaders(c: Context<AppEnv>, brand: Brand, opts: { claim?: boolean } = {}) {
  c.header("content-security-policy", pageCsp(brand, opts));
  c.header("x-content-type-options", "nosniff");
  c.header("referrer-policy", "no-referrer");
  c.header("cache-control", opts.claim ? "no-store" : "no-cache");
}

const badQuery = (c: Context<AppEnv>, brand: Brand, message: string) => {
  pageHeaders(c, brand);
  return c.html(notFoundPage(brand, message).replace("<h1>Not found</h1>", "<h1>Bad request</h1>"), 400);
};

async function render(c: Context<AppEnv>, org: OrgRow, origin: string): Promise<Response> {
  const deps = c.get("deps");
  const brand = brandOf(org);
  const path = c.req.path;
  if (path === "/brand.css") {
    c.header("x-content-type-options", "nosniff");
    c.header("cache-control", "no-cache");
    return c.body(brandCss(brand), 200, { "content-type": "text/css; charset=utf-8" });
  }
  if (path.startsWith("/claim/")) {
    pageHeaders(c, brand, { claim: true });
    const valid = CLAIM_CODE_PATTERN.test(path.slice("/claim/".length));
    return c.html(claimPage(brand, valid), valid ? 200 : 404);
  }
  if (path.startsWith("/agents/")) {
    const idText = path.slice("/agents/".length);
    const id = /^\d{1,15}$/.test(idText) ? Number(idText) : null;
    const agent = id === null ? null : await siteAgent(deps, { orgId: org.id, agentId: id });
    pageHeaders(c, brand);
    if (!agent) return c.html(notFoundPage(brand, "No such agent in this directory."), 404);
    return c.html(agentPage(brand, agent));
  }
  if (path === "/agents") {
    const query = new URL(c.req.url).searchParams;
    const pageParam = query.get("page") ?? "1";
    if (!/^\d{1,6}$/.test(pageParam) || Number(pageParam) < 1) {
      return badQuery(c, brand, "page must be a whole number from 1");
    }
    const capability = query.get("capability")?.trim().toLowerCase() || null;
    if (capability !== null && capability.length > 100) {
      return badQuery(c, brand, "capability is at most 100 characters");
    }
    const page = Number(pageParam);
    const found = await siteDirectory(deps, { orgId: org.id, capability, page, pageSize: PAGE_SIZE });
    pageHeaders(c, brand);
    const pages = Math.ceil(found.total / PAGE_SIZE);
    return c.html(directoryPage(brand, found.rows, { page, pages, total: found.total, capability }));
  }
  const facts = await siteLandingFacts(deps, { orgId: org.id });
  pageHeaders(c, brand);
  return c.html(landingPage(brand, { ...facts, origin, domain: org.domainStatus === "active" ? org.domain : null }));
}

export const whiteLabelSite: MiddlewareHandler<AppEnv> = async (c, next) => {
  if (c.req.method !== "GET" || !isSitePath(c.req.path)) return next();
  const deps = c.get("deps");
  const site = siteHostOf(c.req.header("host"), deps.env);
  if (!site) return next();
  await enforceRateLimit(c, "site", LIMITS.public);
  const org = await siteOrganization(deps, site);
  if (!org) {
    // An unknown subdomain, or a domain not (yet) verified: say so on a plain page.
    const plain = brandOf({ name: "AgentHub", branding: {} });
    if (c.req.path === "/brand.css") {
      return c.body(brandCss(plain), 200, { "content-type": "text/css; charset=utf-8" });
    }
    pageHeaders(c, plain);
    return c.html(notFoundPage(plain, `No organization is served at ${site.host}.`), 404);
  }
  return render(c, org, siteOrigin(deps.env, site.host));
};

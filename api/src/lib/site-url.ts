// Where white-label sites live: <subdomain>.<base domain>, with PUBLIC_URL's scheme and port. The base domain is
// ORG_BASE_DOMAIN, else PUBLIC_URL's host name (localhost when that is an IP address, since an IP has no subdomains).
import { isIP } from "node:net";
import type { ApiEnv } from "../env.ts";

type SiteEnv = Pick<ApiEnv, "PUBLIC_URL" | "ORG_BASE_DOMAIN">;

export function baseDomain(env: SiteEnv): string {
  if (env.ORG_BASE_DOMAIN) return env.ORG_BASE_DOMAIN;
  const host = new URL(env.PUBLIC_URL).hostname.replace(/^\[|\]$/g, "").toLowerCase();
  return isIP(host) ? "localhost" : host;
}

/** The origin of a site at `host` (a subdomain host or a custom domain), e.g. https://acme.agents.example.com */
export function siteOrigin(env: SiteEnv, host: string): string {
  const pub = new URL(env.PUBLIC_URL);
  return `${pub.protocol}//${host}${pub.port ? `:${pub.port}` : ""}`;
}

/** The organization's own site: its dashboard landing, agent directory and claim pages. */
export const subdomainHost = (env: SiteEnv, subdomain: string) => `${subdomain}.${baseDomain(env)}`;
export const orgSiteUrl = (env: SiteEnv, subdomain: string) => `${siteOrigin(env, subdomainHost(env, subdomain))}/`;

// White-label HTML, rendered on the server. Every value that comes from an organization or an agent is escaped;
// no page has an inline script except the claim page's, which is the same bytes for everyone (claim-page.ts) and
// allowed by its hash. Styles live in /brand.css (this origin), images only from the logo's own origin.
import { createHash } from "node:crypto";
import { CLAIM_BODY, CLAIM_SCRIPT, INVALID_CLAIM_BODY } from "../claim-page.ts";

const HEX_COLOR = /^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6}|[0-9a-fA-F]{8})$/;
const FONT_FAMILY = /^[\w\s,'"-]{1,100}$/;

export const escapeHtml = (value: unknown) =>
  String(value).replace(
    /[&<>"']/g,
    (ch) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[ch]!,
  );

export interface Brand {
  name: string;
  logo: URL | null;
  primaryColor: string;
  accentColor: string;
  secondaryColor: string;
  fontFamily: string;
  customCSS: string;
}

const DEFAULTS = { primaryColor: "#3b5bdb", accentColor: "#f59f00", secondaryColor: "#f1f3f5" };

/** The organization's branding, re-checked (stored values were validated on write; anything odd falls back). */
export function brandOf(org: { name: string; branding: Record<string, unknown> }): Brand {
  const b = org.branding ?? {};
  const color = (key: keyof typeof DEFAULTS) => {
    const v = b[key];
    return typeof v === "string" && HEX_COLOR.test(v) ? v : DEFAULTS[key];
  };
  let logo: URL | null = null;
  if (typeof b.logo === "string") {
    try {
      const u = new URL(b.logo);
      if (u.protocol === "https:" || u.protocol === "http:") logo = u;
    } catch {
      logo = null;
    }
  }
  const font = typeof b.fontFamily === "string" && FONT_FAMILY.test(b.fontFamily) ? b.fontFamily : "system-ui";
  const css = typeof b.customCSS === "string" && !b.customCSS.includes("<") ? b.customCSS : "";
  return {
    name: org.name,
    logo,
    primaryColor: color("primaryColor"),
    accentColor: color("accentColor"),
    secondaryColor: color("secondaryColor"),
    fontFamily: font,
    customCSS: css,
  };
}

const BASE_CSS = `
body{font-family:var(--font),system-ui,sans-serif;max-width:60rem;margin:0 auto;padding:0 1rem 3rem;color:#1b1b1f}
header.brand{display:flex;align-items:center;gap:.75rem;padding:1rem 0;border-bottom:4px solid var(--primary)}
header.brand img{height:40px;max-width:160px;object-fit:contain}
header.brand .name{font-size:1.3rem;font-weight:700;color:var(--primary)}
header.brand nav{margin-left:auto;display:flex;gap:1rem}
a{color:var(--primary)} a:hover{color:var(--accent)}
.card{border:1px solid #ddd;border-radius:12px;padding:1.25rem;margin:1rem 0;background:var(--secondary)}
.stats{display:flex;gap:1rem;flex-wrap:wrap} .stats .card{flex:1;min-width:10rem;margin:0}
.stats b{display:block;font-size:1.8rem;color:var(--primary)}
table{border-collapse:collapse;width:100%} th,td{text-align:left;padding:.5rem;border-bottom:1px solid #e9ecef}
th{background:var(--secondary)} .tag{display:inline-block;padding:0 .4rem;margin:0 .2rem .2rem 0;border-radius:6px;
background:var(--secondary);border:1px solid #dee2e6;font-size:.85rem}
button{font-size:1rem;padding:.6rem 1.2rem;border-radius:8px;border:0;background:var(--primary);color:#fff;cursor:pointer}
button:disabled{opacity:.5} code{word-break:break-all}
.warn{background:#fff4e6;border-color:var(--accent)} .err{color:#c92a2a}
.pager{display:flex;gap:1rem;margin:1rem 0}
`;

/** /brand.css: the organization's colours and font as custom properties, the shared layout, then its own CSS. */
export function brandCss(brand: Brand): string {
  return `:root{--primary:${brand.primaryColor};--accent:${brand.accentColor};--secondary:${brand.secondaryColor};--font:${brand.fontFamily}}
${BASE_CSS}
/* organization CSS */
${brand.customCSS}
`;
}

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;

/** No script (or only the claim script, by hash), styles from this origin, images from the logo's origin only. */
export function pageCsp(brand: Brand, opts: { claim?: boolean } = {}): string {
  return [
    "default-src 'none'",
    opts.claim ? `script-src ${sha256(CLAIM_SCRIPT)}` : null,
    "style-src 'self'",
    brand.logo ? `img-src ${brand.logo.origin}` : null,
    opts.claim ? "connect-src 'self'" : null,
    "base-uri 'none'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ]
    .filter(Boolean)
    .join("; ");
}

function layout(brand: Brand, title: string, main: string, script = ""): string {
  const logo = brand.logo
    ? `<img class="logo" src="${escapeHtml(brand.logo.href)}" alt="${escapeHtml(brand.name)} logo" referrerpolicy="no-referrer">`
    : "";
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(title)} · ${escapeHtml(brand.name)}</title>
<link rel="stylesheet" href="/brand.css"></head>
<body>
<header class="brand">${logo}<span class="name" id="org-name">${escapeHtml(brand.name)}</span>
<nav><a href="/">Dashboard</a><a href="/agents">Agents</a><a href="/docs">API</a></nav></header>
<main>
${main}
</main>${script ? `\n<script type="module">${script}</script>` : ""}
</body></html>`;
}

export interface LandingFacts {
  origin: string;
  agents: number;
  active: number;
  avgReputation: number;
  bountiesCompleted: number;
  domain: string | null;
}

export function landingPage(brand: Brand, f: LandingFacts): string {
  return layout(
    brand,
    "Dashboard",
    `<h1>${escapeHtml(brand.name)} agent hub</h1>
<section class="stats">
<div class="card"><b id="agents-total">${f.agents}</b>agents</div>
<div class="card"><b id="agents-active">${f.active}</b>active (staked)</div>
<div class="card"><b id="avg-reputation">${f.avgReputation}</b>average reputation</div>
<div class="card"><b id="bounties-completed">${f.bountiesCompleted}</b>bounties completed</div>
</section>
<div class="card">
<p>Browse the <a href="/agents">agent directory</a>. Members use the API at <code>${escapeHtml(f.origin)}/api</code> with the
organization's key (<code>Authorization: Bearer &lt;API_KEY&gt;</code>); its reference is at <a href="/docs">/docs</a>.</p>
${f.domain ? `<p>Also served at <code>${escapeHtml(f.domain)}</code>.</p>` : ""}
</div>`,
  );
}

export interface DirectoryRow {
  id: number;
  name: string;
  status: string;
  score: number;
  capabilities: string[];
  organization: string;
}

export function directoryPage(
  brand: Brand,
  rows: DirectoryRow[],
  page: { page: number; pages: number; total: number; capability: string | null },
): string {
  const q = (p: number) =>
    `/agents?page=${p}${page.capability ? `&amp;capability=${encodeURIComponent(page.capability)}` : ""}`;
  const body = rows.length
    ? rows
        .map(
          (
            r,
          ) => `<tr data-agent-id="${r.id}" data-organization="${escapeHtml(r.organization)}"><td>${r.id}</td><td class="agent-name">${escapeHtml(r.name)}</td>
<td>${escapeHtml(r.status)}</td><td>${r.score}</td><td>${r.capabilities.map((c) => `<span class="tag">${escapeHtml(c)}</span>`).join("")}</td>
<td><a href="/agents/${r.id}">profile</a></td></tr>`,
        )
        .join("\n")
    : `<tr><td colspan="6" id="empty">No agents${page.capability ? ` with ${escapeHtml(page.capability)}` : ""} yet.</td></tr>`;
  return layout(
    brand,
    "Agents",
    `<h1>Agents</h1>
<form method="get" action="/agents"><input name="capability" placeholder="capability" value="${escapeHtml(page.capability ?? "")}">
<button type="submit">Filter</button></form>
<p id="total">${page.total} agent${page.total === 1 ? "" : "s"}</p>
<table id="agents"><thead><tr><th>#</th><th>Name</th><th>Status</th><th>Reputation</th><th>Capabilities</th><th></th></tr></thead>
<tbody>
${body}
</tbody></table>
<div class="pager">${page.page > 1 ? `<a href="${q(page.page - 1)}" rel="prev">Previous</a>` : ""}
<span>page ${page.page} of ${Math.max(page.pages, 1)}</span>${page.page < page.pages ? `<a href="${q(page.page + 1)}" rel="next">Next</a>` : ""}</div>`,
  );
}

export interface AgentFacts {
  id: number;
  name: string;
  description: string;
  status: string;
  score: number;
  completions: number;
  stakedUsdc: string;
  claimed: boolean;
  owner: string;
  wallet: string;
  capabilities: string[];
  programmingLangs: string[];
  domains: string[];
  tools: string[];
  organization: string;
  sharedBy: string | null;
}

const tags = (values: string[]) => values.map((v) => `<span class="tag">${escapeHtml(v)}</span>`).join("") || "none";

export function agentPage(brand: Brand, a: AgentFacts): string {
  return layout(
    brand,
    a.name,
    `<h1 id="agent-name">${escapeHtml(a.name)}</h1>
<p id="agent-description">${escapeHtml(a.description)}</p>
${a.sharedBy ? `<p class="card" id="shared">Shared by organization <code>${escapeHtml(a.sharedBy)}</code>.</p>` : ""}
<section class="stats">
<div class="card"><b id="agent-score">${a.score}</b>reputation</div>
<div class="card"><b id="agent-status">${escapeHtml(a.status)}</b>status</div>
<div class="card"><b id="agent-completions">${a.completions}</b>runs completed</div>
<div class="card"><b id="agent-stake">${escapeHtml(a.stakedUsdc)}</b>USDC staked</div>
</section>
<table><tbody>
<tr><th>Agent</th><td>#${a.id}</td></tr>
<tr><th>Capabilities</th><td>${tags(a.capabilities)}</td></tr>
<tr><th>Languages</th><td>${tags(a.programmingLangs)}</td></tr>
<tr><th>Domains</th><td>${tags(a.domains)}</td></tr>
<tr><th>Tools</th><td>${tags(a.tools)}</td></tr>
<tr><th>Owner</th><td><code>${escapeHtml(a.owner)}</code>${a.claimed ? "" : " (not claimed yet)"}</td></tr>
<tr><th>Wallet</th><td><code>${escapeHtml(a.wallet)}</code></td></tr>
</tbody></table>
<p><a href="/agents">All agents</a> · <a href="/api/agents/${a.id}">JSON</a> · <a href="/api/reputation/${a.id}">reputation breakdown</a></p>`,
  );
}

export function claimPage(brand: Brand, valid: boolean): string {
  return layout(
    brand,
    "Claim your agent",
    `<h1>Claim your agent</h1>\n${valid ? CLAIM_BODY : INVALID_CLAIM_BODY}`,
    valid ? CLAIM_SCRIPT : "",
  );
}

export function notFoundPage(brand: Brand | null, message: string): string {
  const b = brand ?? brandOf({ name: "AgentHub", branding: {} });
  return layout(b, "Not found", `<h1>Not found</h1><p class="err" id="error">${escapeHtml(message)}</p>`);
}

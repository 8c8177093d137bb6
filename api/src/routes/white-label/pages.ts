// White-label HTML, rendered on the server. Every value that comes from an organization or an agent is escaped;
// no page has an inline script except the claim page's, which is the same bytes for everyone (claim-page.ts) and
// allowed by its hash. Styles live in /brand.css (this origin), images only from the logo's own origin.
import type { SiteAgent } from "../../use-cases/organizations/site-agent.ts";
import type { SiteDirectoryRow } from "../../use-cases/organizations/site-directory.ts";
import { CLAIM_BODY, CLAIM_SCRIPT, INVALID_CLAIM_BODY } from "../claim-page.ts";
import { type Brand, brandOf, escapeHtml } from "./brand.ts";

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

export function directoryPage(
  brand: Brand,
  rows: SiteDirectoryRow[],
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

const tags = (values: string[]) => values.map((v) => `<span class="tag">${escapeHtml(v)}</span>`).join("") || "none";

export function agentPage(brand: Brand, a: SiteAgent): string {
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

// The page behind claimURL. With the web app built (web/, WEB_DIST_DIR) a well-formed code gets the app's own HTML
// (the app's claim page: /claim/$claimCode in web/src/router.tsx; CSP 'self', no inline script). Without a build,
// and on white-label sites, it is this small self-contained page: shows the agent, asks a browser wallet (EIP-1193)
// to sign the claim message, then shows the private key once. No third-party scripts: the key never touches
// anything but this origin.
// The page is the same bytes for every claim code: the script reads the code from its own URL, so no user data is
// ever written into a script, and the CSP allows exactly this script and this style by hash (no 'unsafe-inline').
import { createHash } from "node:crypto";
import { Hono } from "hono";
import type { AppEnv } from "../context.ts";
import { appPage } from "./web-app.ts";

/** Claim codes are 24 random bytes in base64url (api/src/routes/agents/register.ts); anything else is not a link. */
export const CLAIM_CODE_PATTERN = /^[A-Za-z0-9_-]{32}$/;

const STYLE = `
 body{font-family:system-ui,sans-serif;max-width:40rem;margin:3rem auto;padding:0 1rem;color:#1b1b1f}
 .card{border:1px solid #ddd;border-radius:12px;padding:1.25rem;margin:1rem 0}
 button{font-size:1rem;padding:.6rem 1.2rem;border-radius:8px;border:0;background:#3b5bdb;color:#fff;cursor:pointer}
 button:disabled{opacity:.5} code{word-break:break-all}
 .warn{background:#fff4e6;border-color:#f59f00} .err{color:#c92a2a}
`;

/** The claim script: the same bytes on every claim page (white-label ones too), allowed by its hash. */
export const CLAIM_SCRIPT = `
const claimCode = decodeURIComponent(location.pathname.split("/").pop() || "");
const $ = (id) => document.getElementById(id);
const show = (el, html) => { el.innerHTML = html; el.hidden = false; };
const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({"&":"&amp;","<":"&lt;",">":"&gt;",'"':"&quot;","'":"&#39;"}[c]));
let info;
async function load() {
  const res = await fetch("/api/agents/claim-info/" + encodeURIComponent(claimCode));
  const body = await res.json();
  if (!res.ok) { show($("info"), "This claim link cannot be used: " + esc(body.error.message)); return; }
  info = body;
  show($("info"), "<p>Agent <b>#" + info.agentId + "</b></p><p>Wallet <code>" + esc(info.walletAddress) +
    "</code></p><p>Profile <code>" + esc(info.ipfsHash) + "</code></p><p>Claim before " + new Date(info.expiresAt).toUTCString() + "</p>");
  $("actions").hidden = false;
}
$("claim").addEventListener("click", async () => {
  $("error").textContent = "";
  if (!window.ethereum) { $("error").textContent = "No browser wallet found (EIP-1193)."; return; }
  $("claim").disabled = true;
  try {
    const [address] = await window.ethereum.request({ method: "eth_requestAccounts" });
    const message = "I claim agent " + info.agentId + " to address " + address;
    const signature = await window.ethereum.request({ method: "personal_sign", params: [message, address] });
    const res = await fetch("/api/agents/" + info.agentId + "/claim", {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ signature, userAddress: address, claimCode }),
    });
    const body = await res.json();
    if (!res.ok) throw new Error(body.error.message);
    $("actions").hidden = true;
    show($("result"), "<h2>Agent #" + body.agentId + " is yours</h2><p>The identity token moved to <code>" + esc(body.ownerAddress) +
      "</code>.</p><p><b>Save this private key now. It is shown only once and AgentHub has deleted its copy.</b></p>" +
      "<p><code id=\\"private-key\\">" + esc(body.privateKey) + "</code></p><p>Wallet <code>" + esc(body.walletAddress) + "</code></p>");
  } catch (e) {
    $("error").textContent = "Claim failed: " + (e && e.message ? e.message : e);
    $("claim").disabled = false;
  }
});
load();
`;

const shell = (body: string, script = "") => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Claim your AgentHub agent</title>
<style>${STYLE}</style></head>
<body>
<h1>Claim your agent</h1>
${body}${script ? `\n<script type="module">${script}</script>` : ""}
</body></html>`;

export const CLAIM_BODY = `<div id="info" class="card">Loading…</div>
<div id="actions" hidden><button id="claim">Connect wallet and claim</button></div>
<div id="result" class="card warn" hidden></div>
<p id="error" class="err" role="alert"></p>`;
export const INVALID_CLAIM_BODY = `<p id="error" class="err" role="alert">This claim link is not valid: check that you copied all of it.</p>`;

const CLAIM_PAGE = shell(CLAIM_BODY, CLAIM_SCRIPT);
const INVALID_PAGE = shell(INVALID_CLAIM_BODY);

const sha256 = (text: string) => `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`;
/** Only the page's own script and style run; no inline handlers, no other origin, no framing, no forms. */
const CSP = [
  "default-src 'none'",
  `script-src ${sha256(CLAIM_SCRIPT)}`,
  `style-src ${sha256(STYLE)}`,
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

export const claimPageRoutes = new Hono<AppEnv>().get("/:claimCode", (c) => {
  const valid = CLAIM_CODE_PATTERN.test(c.req.param("claimCode"));
  const app = valid ? appPage(c, "no-store") : undefined;
  if (app) return app;
  c.header("cache-control", "no-store");
  c.header("content-security-policy", CSP);
  c.header("x-content-type-options", "nosniff");
  if (!valid) return c.html(INVALID_PAGE, 404);
  return c.html(CLAIM_PAGE);
});

// White-label sites on the real stack, routed by Host: <subdomain>.localhost (the e2e stack's base domain, from
// PUBLIC_URL=http://localhost:<port>) and a custom domain verified through the loopback DNS server. Raw HTTP with
// Host headers checks routing, escaping, CSP and errors; a real headless Chromium renders the branded pages (colours,
// logo, no CSP violation, no injected script running) and claims an agent on the organization's own claim page.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it } from "node:test";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import type { Browser } from "playwright-core";
import { type Hex, hexToString, isHex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { launchChromium } from "../support/browser.ts";
import { setTxtRecord } from "../support/dns.ts";
import { api, db, deployments, newWallet, publicClient, stack } from "../support/stack.ts";

const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const uniq = () => Math.random().toString(36).slice(2, 10);
const apiPort = Number(new URL(stack.apiUrl).port);
const publicPort = new URL(stack.env.PUBLIC_URL!).port;

interface Page {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A GET to the API's socket with the given Host header (what a browser sends for that name). */
function getWithHost(host: string, path: string, headers: Record<string, string> = {}): Promise<Page> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: "127.0.0.1",
        port: apiPort,
        path,
        method: "GET",
        headers: {
          host,
          "x-forwarded-for": `10.91.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`,
          ...headers,
        },
        timeout: 30_000,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () =>
          resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString("utf8") }),
        );
      },
    );
    req.on("timeout", () => req.destroy(new Error(`GET ${host}${path} timed out`)));
    req.on("error", reject);
    req.end();
  });
}

// A 1x1 PNG served as the organization's logo from its own origin (the CSP allows exactly that origin for images).
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);
let logoServer: Server;
let logoOrigin = "";
let logoHits = 0;
before(async () => {
  logoServer = createServer((_req, res) => {
    logoHits++;
    res.writeHead(200, { "content-type": "image/png" }).end(PNG);
  });
  await new Promise<void>((r) => logoServer.listen(0, "127.0.0.1", r));
  logoOrigin = `http://127.0.0.1:${(logoServer.address() as AddressInfo).port}`;
});
after(async () => {
  await new Promise<void>((r) => logoServer.close(() => r()));
  await db.end();
});

const EVIL_NAME = `Acme <script>window.__pwned=1</script> & "Co"`;

interface Org {
  id: string;
  subdomain: string;
  dashboard: string;
  apiKey: string;
  apiSecret: string;
}

async function createOrg(branding: Record<string, string>, plan = "growth", name = EVIL_NAME): Promise<Org> {
  const subdomain = `wl-${uniq()}`;
  const res = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name, subdomain, plan, branding },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as Org;
}

async function registerWithKey(o: Org, name: string, capabilities = ["coding"]) {
  const res = await api("POST", "/api/agents/register", {
    headers: { authorization: `Bearer ${o.apiKey}` },
    body: { name, capabilities },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { agentId: number; claimCode: string; claimURL: string; walletAddress: `0x${string}` };
}

/** Publishes the TXT record and verifies the domain through the API. */
async function verifiedDomain(o: Org): Promise<string> {
  const domain = `brand-${uniq()}.example`;
  const keys = { "x-api-key": o.apiKey, "x-api-secret": o.apiSecret };
  const res = await api("POST", `/api/organizations/${o.id}/domain`, { headers: keys, body: { domain } });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const txt = res.body.dnsRecords.find((r: { type: string }) => r.type === "TXT");
  const cname = res.body.dnsRecords.find((r: { type: string }) => r.type === "CNAME");
  assert.equal(cname.value, `${o.subdomain}.localhost`, "the CNAME points at the organization's subdomain site");
  // Not verified yet: the domain serves nothing.
  assert.equal((await getWithHost(`${domain}:${publicPort}`, "/")).status, 404);
  setTxtRecord(txt.name, [txt.value]);
  const ok = await api("POST", `/api/organizations/${o.id}/domain/verify`, { headers: keys });
  assert.equal(ok.status, 200, JSON.stringify(ok.body));
  return domain;
}

const csp = (p: Page) => String(p.headers["content-security-policy"] ?? "");
const hostOf = (o: Org) => new URL(o.dashboard).host;

describe("white-label sites over HTTP (Host header)", () => {
  let org: Org;
  before(async () => {
    org = await createOrg({ logo: `${logoOrigin}/logo.png`, primaryColor: "#c2255c", accentColor: "#2b8a3e" });
  });

  it("the dashboard URL the API hands out answers with the organization's branded landing page", async () => {
    assert.equal(org.dashboard, `http://${org.subdomain}.localhost:${publicPort}/`);
    const page = await getWithHost(hostOf(org), "/");
    assert.equal(page.status, 200, page.body);
    assert.match(String(page.headers["content-type"]), /^text\/html/);
    // The name is escaped, never markup; no inline script at all on this page.
    assert.ok(page.body.includes("Acme &lt;script&gt;window.__pwned=1&lt;/script&gt; &amp; &quot;Co&quot;"));
    assert.ok(!page.body.includes("<script"), "no script on the landing page");
    assert.ok(page.body.includes(`<img class="logo" src="${logoOrigin}/logo.png"`));
    assert.ok(page.body.includes('<link rel="stylesheet" href="/brand.css">'));
    assert.ok(!csp(page).includes("unsafe-inline"));
    assert.match(csp(page), /default-src 'none'/);
    assert.ok(csp(page).includes(`img-src ${logoOrigin}`));
    assert.equal(page.headers["x-content-type-options"], "nosniff");

    const css = await getWithHost(hostOf(org), "/brand.css");
    assert.equal(css.status, 200);
    assert.match(String(css.headers["content-type"]), /^text\/css/);
    assert.ok(css.body.includes("--primary:#c2255c"));
    assert.ok(css.body.includes("--accent:#2b8a3e"));

    // The same paths on the service's own host are not a site: / is AgentHub's own front door (the web app), with
    // nothing of the organization's; brand.css is not served there.
    const plain = await getWithHost(`localhost:${publicPort}`, "/");
    assert.equal(plain.status, 200);
    assert.ok(!plain.body.includes("Acme"), "no organization's brand on the service's own host");
    assert.ok(!csp(plain).includes(logoOrigin));
    const plainCss = await getWithHost(`localhost:${publicPort}`, "/brand.css");
    assert.equal(plainCss.status, 404);
    assert.equal(JSON.parse(plainCss.body).error.code, "NOT_FOUND");
  });

  it("lists the organization's agents only, escaped, with capability filter and pagination", async () => {
    const mine = await registerWithKey(org, `<img src=x onerror="window.__pwned=2">`, ["Coding", "research"]);
    const second = await registerWithKey(org, "Second Agent", ["writing"]);
    const outsider = await api("POST", "/api/agents/register", { body: { name: "Outsider Agent" } });
    assert.equal(outsider.status, 201);

    const page = await getWithHost(hostOf(org), "/agents");
    assert.equal(page.status, 200, page.body);
    assert.ok(page.body.includes(`data-agent-id="${mine.agentId}"`));
    assert.ok(page.body.includes(`data-agent-id="${second.agentId}"`));
    assert.ok(!page.body.includes(`data-agent-id="${outsider.body.agentId}"`));
    assert.ok(!page.body.includes("Outsider Agent"));
    assert.ok(page.body.includes("&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;"));
    assert.ok(!page.body.includes("<img src=x"));
    assert.ok(page.body.includes('<p id="total">2 agents</p>'));

    const filtered = await getWithHost(hostOf(org), "/agents?capability=CODING");
    assert.ok(filtered.body.includes(`data-agent-id="${mine.agentId}"`));
    assert.ok(!filtered.body.includes(`data-agent-id="${second.agentId}"`));
    const empty = await getWithHost(hostOf(org), "/agents?page=2");
    assert.equal(empty.status, 200);
    assert.ok(empty.body.includes('id="empty"'));
    // Each agent has its page on the site; agents of other organizations do not.
    const detail = await getWithHost(hostOf(org), `/agents/${mine.agentId}`);
    assert.equal(detail.status, 200, detail.body);
    assert.ok(detail.body.includes(`<h1 id="agent-name">&lt;img src=x onerror=&quot;window.__pwned=2&quot;&gt;</h1>`));
    assert.ok(detail.body.includes('<span class="tag">Coding</span>'));
    assert.ok(!detail.body.includes('id="shared"'));
    assert.ok(!detail.body.includes("<script"));
    for (const missing of [`/agents/${outsider.body.agentId}`, "/agents/abc", "/agents/99999999999"]) {
      const res = await getWithHost(hostOf(org), missing);
      assert.equal(res.status, 404, missing);
      assert.ok(res.body.includes("No such agent"));
    }
    for (const bad of ["/agents?page=0", "/agents?page=abc", `/agents?capability=${"x".repeat(101)}`]) {
      const res = await getWithHost(hostOf(org), bad);
      assert.equal(res.status, 400, bad);
      assert.ok(res.body.includes("Bad request"));
    }
  });

  it("agents registered with the key get the organization's branded claim page; the API answers on its host", async () => {
    const reg = await registerWithKey(org, "Claim Me");
    assert.equal(reg.claimURL, `${org.dashboard}claim/${reg.claimCode}`);
    const page = await getWithHost(hostOf(org), `/claim/${reg.claimCode}`);
    assert.equal(page.status, 200);
    assert.ok(page.body.includes("Acme &lt;script&gt;"));
    // The only script is the claim page's own, allowed by its hash (the service's own host answers claim links with
    // the web app's page instead, whose scripts are same-origin files: test/e2e/claim-page.test.ts).
    const scriptHash = csp(page).match(/script-src ('sha256-[^']+')/)![1]!;
    const scripts = [...page.body.matchAll(/<script type="module">([\s\S]*?)<\/script>/g)].map((m) => m[1]!);
    assert.equal(scripts.length, 1);
    assert.equal(`'sha256-${createHash("sha256").update(scripts[0]!).digest("base64")}'`, scriptHash);
    assert.ok(!scripts[0]!.includes(reg.claimCode), "no user data inside the script");
    assert.equal(page.headers["cache-control"], "no-store");
    // The page's own API calls land on the same origin.
    const info = await getWithHost(hostOf(org), `/api/agents/claim-info/${reg.claimCode}`);
    assert.equal(info.status, 200, info.body);
    assert.equal(JSON.parse(info.body).agentId, reg.agentId);
    // A malformed code is refused on a static page.
    const invalid = await getWithHost(hostOf(org), `/claim/${encodeURIComponent("</script><script>x")}`);
    assert.equal(invalid.status, 404);
    assert.ok(!invalid.body.includes("<script"));
  });

  it("a verified custom domain serves the same site; unknown and unverified hosts serve nothing", async () => {
    const domain = await verifiedDomain(org);
    const page = await getWithHost(`${domain}:${publicPort}`, "/");
    assert.equal(page.status, 200, page.body);
    assert.ok(page.body.includes("Acme &lt;script&gt;"));
    assert.ok(page.body.includes(`Also served at <code>${domain}</code>`));
    const upper = await getWithHost(`${domain.toUpperCase()}.:${publicPort}`, "/agents");
    assert.equal(upper.status, 200, "host names are case-insensitive, a trailing dot is the same name");

    const unknown = await getWithHost(`nobody-${uniq()}.localhost:${publicPort}`, "/");
    assert.equal(unknown.status, 404);
    assert.ok(unknown.body.includes("No organization is served at"));
    const stranger = await getWithHost(`stranger-${uniq()}.example`, "/agents");
    assert.equal(stranger.status, 404);
    // Another organization's pending (unverified) domain does not route.
    const rival = await createOrg({ primaryColor: "#000000" }, "growth", "Rival");
    const pending = `pending-${uniq()}.example`;
    const set = await api("POST", `/api/organizations/${rival.id}/domain`, {
      headers: { "x-api-key": rival.apiKey, "x-api-secret": rival.apiSecret },
      body: { domain: pending },
    });
    assert.equal(set.status, 200);
    assert.equal((await getWithHost(pending, "/")).status, 404);
    // A hostile Host header is escaped on the 404 page.
    const hostile = await getWithHost(`x"><b>-${uniq()}.localhost`, "/");
    assert.ok(!hostile.body.includes("<b>"));
  });

  it("branding changes show at once (brand.css is revalidated)", async () => {
    const keys = { "x-api-key": org.apiKey, "x-api-secret": org.apiSecret };
    const patched = await api("PATCH", `/api/organizations/${org.id}`, {
      headers: keys,
      body: {
        branding: { primaryColor: "#1864ab", fontFamily: "Georgia, serif", customCSS: "h1{letter-spacing:2px}" },
      },
    });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));
    const css = await getWithHost(hostOf(org), "/brand.css");
    assert.ok(css.body.includes("--primary:#1864ab"));
    assert.ok(css.body.includes("--font:Georgia, serif"));
    assert.ok(css.body.includes("h1{letter-spacing:2px}"));
    assert.equal(css.headers["cache-control"], "no-cache");
  });
});

describe("white-label sites in Chromium", () => {
  let browser: Browser;
  before(async () => {
    // *.localhost is loopback in Chromium already; the test's custom domains (*.example) are mapped there too.
    browser = await launchChromium(["--host-resolver-rules=MAP *.example 127.0.0.1"]);
  });
  after(async () => {
    await browser?.close();
  });

  it("renders the branded dashboard and directory with the organization's colours and logo, running nothing injected", async () => {
    const org = await createOrg({ logo: `${logoOrigin}/logo.png`, primaryColor: "#c2255c", secondaryColor: "#fff0f6" });
    await registerWithKey(org, `<img src=x onerror="window.__pwned=2">`);
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("console", (m) => /Content Security Policy|Refused/i.test(m.text()) && problems.push(m.text()));
    page.on("pageerror", (e) => problems.push(e.message));
    const hitsBefore = logoHits;
    const res = await page.goto(org.dashboard);
    assert.equal(res?.status(), 200);
    assert.equal(await page.textContent("#org-name"), EVIL_NAME);
    assert.equal(await page.title(), `Dashboard · ${EVIL_NAME}`);
    const color = await page.$eval("#org-name", (el) => getComputedStyle(el).color);
    assert.equal(color, "rgb(194, 37, 92)"); // #c2255c from brand.css
    const border = await page.$eval("header.brand", (el) => getComputedStyle(el).borderBottomColor);
    assert.equal(border, "rgb(194, 37, 92)");
    const logoWidth = await page.$eval("img.logo", (el) => (el as HTMLImageElement).naturalWidth);
    assert.equal(logoWidth, 1, "the logo loads from its own origin");
    assert.ok(logoHits > hitsBefore);
    assert.equal(await page.textContent("#agents-total"), "1");

    await page.click("nav a[href='/agents']");
    await page.waitForURL(`${org.dashboard}agents`);
    assert.equal(await page.textContent("#total"), "1 agent");
    assert.equal(await page.textContent(".agent-name"), `<img src=x onerror="window.__pwned=2">`);
    const cardBg = await page.$eval("th", (el) => getComputedStyle(el).backgroundColor);
    assert.equal(cardBg, "rgb(255, 240, 246)"); // secondaryColor
    await page.click("td a");
    await page.waitForURL(/\/agents\/\d+$/);
    assert.equal(await page.textContent("#agent-name"), `<img src=x onerror="window.__pwned=2">`);
    const score = await page.$eval("#agent-score", (el) => getComputedStyle(el).color);
    assert.equal(score, "rgb(194, 37, 92)");
    assert.equal(await page.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.deepEqual(problems, []);
    await page.close();
  });

  it("claims an agent on the organization's branded claim page (custom domain), key shown once", async () => {
    const org = await createOrg({ primaryColor: "#5f3dc4" }, "growth", "Violet Labs");
    const domain = await verifiedDomain(org);
    const reg = await registerWithKey(org, "Browser Claimed");
    const user = newWallet();
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (m) => /Content Security Policy|Refused/i.test(m.text()) && problems.push(m.text()));
    await page.exposeFunction("__walletSign", async (message: string) =>
      user.account.signMessage({ message: isHex(message) ? hexToString(message as Hex) : message }),
    );
    await page.addInitScript(`
      window.ethereum = {
        request: async ({ method, params }) => {
          if (method === "eth_requestAccounts" || method === "eth_accounts") return [${JSON.stringify(user.address)}];
          if (method === "personal_sign") return window.__walletSign(params[0]);
          throw new Error("unsupported " + method);
        },
      };`);
    // The claim link on the organization's custom domain: same page, same origin API calls.
    const url = `http://${domain}:${publicPort}/claim/${reg.claimCode}`;
    assert.equal((await page.goto(url))?.status(), 200);
    assert.equal(await page.textContent("#org-name"), "Violet Labs");
    await page.getByText(`Agent #${reg.agentId}`).waitFor();
    const button = await page.$eval("#claim", (el) => getComputedStyle(el).backgroundColor);
    assert.equal(button, "rgb(95, 61, 196)"); // #5f3dc4
    await page.click("#claim");
    const key = (await page.locator("#private-key").textContent({ timeout: 30_000 })) as Hex;
    assert.equal(privateKeyToAccount(key).address, reg.walletAddress);
    const owner = await publicClient.readContract({
      address: deployments.contracts.AgentIdentity.address,
      abi: AgentIdentityAbi,
      functionName: "ownerOf",
      args: [BigInt(reg.agentId)],
    });
    assert.equal(owner, user.address);
    assert.deepEqual(problems, []);
    await page.close();
  });
});

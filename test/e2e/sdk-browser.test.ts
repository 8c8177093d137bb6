// The SDK in a real browser: its browser bundle (esbuild, platform "browser", from the package entry, as an app's
// bundler builds it) loaded by headless Chromium on a page of the API's own origin, calling the real stack: the
// deployment's config, a registration, a claim signed in the page (EIP-191), a signed profile update (EIP-4361), a
// paid search with the spec's x-payment (EIP-712) and a typed error. Node then checks what the page did.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { browserBundle } from "../../sdk/test/browser-bundle.ts";
import { launchChromium } from "../support/browser.ts";
import { api, freshIp, stack } from "../support/stack.ts";

const sdkDir = new URL("../../sdk", import.meta.url).pathname;

// What the page runs: the SDK's public entry and a viem local account, nothing from Node.
const PAGE_ENTRY = `
import { AgentHub, AgentHubError, isAgentHubError } from "./src/index.ts";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";

window.runSdk = async (ip) => {
  const hub = new AgentHub({ apiUrl: location.origin, headers: { "x-forwarded-for": ip } });
  const config = await hub.config();
  const owner = privateKeyToAccount(generatePrivateKey());
  const reg = await hub.agents.register({ name: "Browser agent", capabilities: ["browsing"] });
  const claimed = await hub.agents.claim(reg.agentId, { claimCode: reg.claimCode, signer: owner });
  await hub.agents.update(reg.agentId, { description: "updated from Chromium" }, owner);
  const found = await hub.search({ query: "Browser agent", limit: 5 }, { signer: owner, scheme: "x-payment" });
  const missing = await hub.agents.get(999999999).catch((e) => e);
  return {
    chainId: config.chainId,
    usdc: config.usdc.address,
    agentId: reg.agentId,
    owner: owner.address,
    walletAddress: claimed.walletAddress,
    payment: found.payment,
    results: found.results.map((r) => r.id),
    error: { instance: missing instanceof AgentHubError, typed: isAgentHubError(missing, "AGENT_NOT_FOUND"), status: missing.status },
    userAgent: navigator.userAgent,
  };
};
`;

let browser: Browser;
let bundle: string;
before(async () => {
  const built = await browserBundle({ contents: PAGE_ENTRY, resolveDir: sdkDir });
  assert.deepEqual(built.nodeBuiltins, [], "the browser bundle pulls in Node built-ins");
  bundle = built.code;
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

describe("sdk in a browser", () => {
  it("reads the config, registers, claims, signs a profile update and pays a search from Chromium", async () => {
    const origin = new URL(stack.apiUrl).origin;
    const context = await browser.newContext();
    const blocked: string[] = [];
    // The test page is served at the API's origin (same-origin requests, as an app behind the same host); every
    // other request goes to the real API, and other hosts are unreachable.
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url === `${origin}/sdk-browser/index.html`) {
        return route.fulfill({
          contentType: "text/html",
          body: '<!doctype html><script type="module" src="sdk.js"></script>',
        });
      }
      if (url === `${origin}/sdk-browser/sdk.js`)
        return route.fulfill({ contentType: "text/javascript", body: bundle });
      if (url.startsWith(`${origin}/`)) return route.continue();
      blocked.push(url);
      return route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${origin}/sdk-browser/index.html`);
    await page.waitForFunction(() => typeof (window as { runSdk?: unknown }).runSdk === "function");
    const out = await page.evaluate((ip) => (window as any).runSdk(ip), freshIp());
    await context.close();

    assert.match(out.userAgent, /HeadlessChrome|Chrome/);
    assert.equal(out.chainId, 84532);
    assert.equal(out.usdc, (await api("GET", "/api/config")).body.usdc.address);
    assert.deepEqual(out.error, { instance: true, typed: true, status: 404 });
    // What the page signed took effect on the server.
    const agent = (await api("GET", `/api/agents/${out.agentId}`)).body;
    assert.equal(agent.ownerAddress.toLowerCase(), out.owner.toLowerCase());
    assert.equal(agent.walletAddress.toLowerCase(), out.walletAddress.toLowerCase());
    assert.equal(agent.description, "updated from Chromium");
    assert.equal(out.payment.scheme, "x-payment");
    assert.equal(out.payment.payer, out.owner);
    assert.ok(Array.isArray(out.results));
    assert.deepEqual(blocked, []);
    assert.deepEqual(pageErrors, []);
  });
});

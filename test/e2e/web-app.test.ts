// The web app served by the API at /, in a real headless Chromium against the real stack: the front door, every
// explorer page (axe-checked), the live activity feed, and a paid search signed by an injected EIP-6963 wallet with
// the USDC it moved checked on chain to the base unit.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { claimAgent, faucet, registerAgent, stakedAgent, usdcOf } from "../support/agents.ts";
import { assertAccessible } from "../support/axe.ts";
import { launchChromium } from "../support/browser.ts";
import { claim, newPoster, openRun } from "../support/runs.ts";
import { api, db, freshIp, stack, waitUntil } from "../support/stack.ts";
import { injectWallet } from "../support/wallet.ts";
import { assertNoSidewaysScroll } from "../support/web.ts";

const origin = new URL(stack.apiUrl).origin;
let browser: Browser;
let context: BrowserContext;
/** What the page reported that it should not: script errors, CSP refusals, requests to other origins. */
const problems: string[] = [];

before(async () => {
  browser = await launchChromium();
  context = await newContext();
  // Nothing leaves this origin: no CDN, no fonts, no analytics.
  await context.route("**/*", (route) => {
    const url = route.request().url();
    if (url.startsWith(`${origin}/`) || url.startsWith("data:")) return route.continue();
    problems.push(`request to ${url}`);
    return route.abort("blockedbyclient");
  });
});
after(async () => {
  await browser?.close();
  await db.end();
});

/** A browser context from its own client address (the API limits requests per IP; the stack trusts one proxy hop). */
const newContext = () => browser.newContext({ baseURL: origin, extraHTTPHeaders: { "x-forwarded-for": freshIp() } });

async function open(path: string): Promise<Page> {
  const page = await context.newPage();
  page.on("pageerror", (e) => problems.push(`pageerror ${path}: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error" && /Content.Security.Policy|Refused/i.test(m.text()))
      problems.push(`csp ${path}: ${m.text()}`);
  });
  await page.goto(path);
  return page;
}

describe("web app: served by the API", () => {
  it("GET / is the app's HTML with a strict CSP, hashed assets cached for a year, API paths untouched", async () => {
    const res = await fetch(`${origin}/`);
    assert.equal(res.status, 200);
    const html = await res.text();
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.equal(res.headers.get("cache-control"), "no-cache");
    // No inline script: every <script> has a src under /assets/ with a content hash in its name.
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
    assert.ok(scripts.length > 0);
    for (const [, attrs, body] of scripts) {
      assert.equal(body!.trim(), "", "inline script");
      assert.match(attrs!, /src="\/assets\/[\w-]+-[\w-]{8}\.js"/);
    }
    const asset = /src="(\/assets\/[^"]+)"/.exec(html)![1]!;
    const js = await fetch(`${origin}${asset}`);
    assert.equal(js.status, 200);
    assert.equal(js.headers.get("cache-control"), "public, max-age=31536000, immutable");
    assert.match(js.headers.get("content-type") ?? "", /^text\/javascript/);

    // Page URLs answer the same HTML to a browser; API paths and non-browser callers keep the API's JSON.
    const deep = await fetch(`${origin}/agents/123`, { headers: { accept: "text/html" } });
    assert.equal(await deep.text(), html);
    const unknownApi = await api("GET", "/api/no-such-thing");
    assert.equal(unknownApi.status, 404);
    assert.equal(unknownApi.body.error.code, "NOT_FOUND");
    assert.equal((await fetch(`${origin}/assets/..%2f..%2fpackage.json`)).status, 404);
    assert.equal((await fetch(`${origin}/assets/missing-00000000.js`)).status, 404);
  });
});

describe("web app: explorer", () => {
  it("the home page says what is running and links to the docs, the OpenAPI document and the sections", async () => {
    const page = await open("/");
    await page.getByRole("heading", { name: "What is running here" }).waitFor();
    const config = (await api("GET", "/api/config")).body;
    await page.getByText(`chain ${config.chainId}`, { exact: false }).waitFor();
    for (const [name, href] of [
      ["API reference", "/docs"],
      ["OpenAPI document", "/openapi.json"],
      ["Agent directory", "/agents"],
      ["Live activity", "/activity"],
    ]) {
      assert.equal(await page.getByRole("link", { name, exact: true }).first().getAttribute("href"), href);
    }
    await assertAccessible(page, "home");
    await page.close();
  });

  it("the directory finds an agent by name; its page shows trust, stake, reputation and its registration links", async () => {
    const name = `Web Directory ${Date.now()}`;
    const agent = await stakedAgent();
    const patched = await registerAgent({ name, capabilities: ["browsing", "testing"] });
    const page = await open("/agents");
    await page.getByRole("heading", { name: "Directory", exact: true }).waitFor();
    // The newest agents are on the last page (when there is more than one), then filter it by the name.
    const list = (await api("GET", "/api/agents?limit=24")).body;
    if (list.pagination.totalPages > 1) {
      await page.getByRole("button", { name: "Last" }).click();
      await page.getByText(`Page ${list.pagination.totalPages} of`).waitFor();
    }
    await page.getByLabel("Filter this page by name or skill (free)").fill(name);
    await page.getByRole("link", { name }).click();
    await page.getByRole("heading", { level: 1, name }).waitFor();
    await page.getByText(`Agent #${patched.agentId}`).waitFor();
    assert.match((await page.locator("section", { hasText: "Trust" }).first().textContent()) ?? "", /unverified/i);
    await assertAccessible(page, "agent page");
    // The registration file and the A2A card it links to are served.
    for (const link of ["ERC-8004 registration file", "A2A agent card"]) {
      const href = await page.getByRole("link", { name: link }).getAttribute("href");
      assert.equal((await fetch(`${origin}${href}`)).status, 200, link);
    }
    // A staked agent's page shows its stake to the cent.
    await page.goto(`/agents/${agent.agentId}`);
    await page
      .getByText("20 USDC")
      .first()
      .waitFor()
      .catch(async (e) => {
        throw new Error(`${e.message}\n${await page.locator("main").innerText()}`);
      });
    await page.close();
  });

  it("leaderboard, stats, runs board and a run's page with its timeline; an unknown run shows the API's code", async () => {
    const poster = await newPoster();
    const title = `Web run ${Date.now()}`;
    const run = await openRun(poster, { title });
    const board = await open("/leaderboard");
    await board.getByRole("table").waitFor();
    await assertAccessible(board, "leaderboard");
    await board.goto("/stats");
    await board.getByRole("heading", { name: "Capabilities" }).waitFor();
    await assertAccessible(board, "stats");
    await board.goto("/runs");
    await board.getByLabel("State").selectOption("OPEN");
    await board.getByRole("link", { name: title }).click();
    await board.getByRole("heading", { level: 1, name: title }).waitFor();
    const detail = (await api("GET", `/api/runs/${run.bountyId}`)).body;
    assert.ok(detail.fundingTx);
    // The funding transaction, on the page and as the timeline's first escrow event.
    await board.locator(`dd code[title="${detail.fundingTx}"]`).waitFor();
    await board.locator(`ol.timeline code[title="${detail.fundingTx}"]`).first().waitFor();
    await assertAccessible(board, "run page");
    await board.goto("/runs/999999999");
    await board.getByText("RUN_NOT_FOUND").waitFor();
    await board.close();
  });

  it("an agent's page lists the runs it claimed (GET /api/runs?agentId=)", async () => {
    const poster = await newPoster();
    const title = `Web agent run ${Date.now()}`;
    const run = await openRun(poster, { title });
    const otherTitle = `${title} (not taken)`;
    await openRun(poster, { title: otherTitle });
    const agent = await stakedAgent();
    const claimed = await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId);
    assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
    // The filter: exactly the run this fresh agent claimed, with the list's paging.
    const mine = (await api("GET", `/api/runs?agentId=${agent.agentId}`)).body;
    assert.deepEqual(
      mine.runs.map((r: { bountyId: number }) => r.bountyId),
      [run.bountyId],
    );
    assert.equal(mine.pagination.total, 1);
    assert.equal((await api("GET", `/api/runs?agentId=${agent.agentId}&state=OPEN`)).body.pagination.total, 0);
    assert.equal((await api("GET", "/api/runs?agentId=-1")).status, 400);

    const page = await open(`/agents/${agent.agentId}`);
    const runs = page.locator("section", { has: page.getByRole("heading", { name: "Runs", exact: true }) });
    await runs.getByRole("link", { name: title, exact: true }).waitFor();
    assert.equal(await runs.getByRole("link", { name: otherTitle }).count(), 0);
    await assertAccessible(page, "agent page with runs");
    await page.close();
  });

  it("every explorer page is axe-clean and fits the screen at phone width", async () => {
    const poster = await newPoster();
    const run = await openRun(poster, { title: `Web phone ${Date.now()}` });
    const agent = await stakedAgent();
    const phone = await browser.newContext({
      baseURL: origin,
      viewport: { width: 390, height: 844 },
      isMobile: true,
      hasTouch: true,
      extraHTTPHeaders: { "x-forwarded-for": freshIp() },
    });
    const pages = [
      ["/", "heading:What is running here"],
      ["/agents", "heading:Directory"],
      [`/agents/${agent.agentId}`, "heading:Trust"],
      ["/leaderboard", "table"],
      ["/stats", "heading:Capabilities"],
      ["/runs", "table"],
      [`/runs/${run.bountyId}`, "heading:Timeline"],
      ["/activity", "heading:Live activity"],
    ] as const;
    for (const [path, ready] of pages) {
      const page = await phone.newPage();
      page.on("pageerror", (e) => problems.push(`pageerror phone ${path}: ${e.message}`));
      await page.goto(path);
      if (ready === "table") await page.getByRole("table").first().waitFor();
      else
        await page
          .getByRole("heading", { name: ready.slice("heading:".length), exact: true })
          .first()
          .waitFor();
      await assertAccessible(page, `${path} at phone width`);
      // Nothing wider than the screen: the page itself never scrolls sideways (wide tables scroll in their box).
      await assertNoSidewaysScroll(page, path);
      await page.close();
    }
  });

  it("the activity feed shows a claim that happens while it is open", async () => {
    const poster = await newPoster();
    const run = await openRun(poster, { title: `Web feed ${Date.now()}` });
    const agent = await stakedAgent();
    const page = await open("/activity");
    await page.getByRole("heading", { name: "Live activity" }).waitFor();
    await page.locator("ol.feed li").first().waitFor();
    await assertAccessible(page, "activity");
    const claimed = await claim(agent.owner.key, agent.owner.address, run.bountyId, agent.agentId);
    assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
    const entry = page.locator("ol.feed li", { hasText: `run #${run.bountyId}` }).filter({ hasText: "claimed" });
    await entry.waitFor({ timeout: 30_000 });
    assert.match((await entry.textContent()) ?? "", new RegExp(`agent #${agent.agentId}`));
    await page.close();
  });
});

describe("web app: wallet", () => {
  it("lists several EIP-6963 wallets, connects one, and pays a search with one explained EIP-3009 signature", async () => {
    const wallets = await newContext();
    const first = await injectWallet(wallets, "First Test Wallet");
    const second = await injectWallet(wallets, "Second Test Wallet");
    const name = `Web Searchable ${Date.now()}`;
    const reg = await registerAgent({ name, capabilities: ["websearch"] });
    await claimAgent(reg.agentId, reg.claimCode);
    const price = BigInt((await api("GET", "/api/config")).body.prices["/api/intelligence/search"].usdc);
    await faucet(second.address, 1_000_000n);
    const recipient = (await api("GET", "/api/config")).body.platformRecipient;
    const [payerBefore, recipientBefore] = await Promise.all([usdcOf(second.address), usdcOf(recipient)]);

    const page = await wallets.newPage();
    page.on("pageerror", (e) => problems.push(`pageerror wallet: ${e.message}`));
    await page.goto("/agents");
    await page.getByRole("button", { name: "Connect wallet" }).click();
    await page.getByRole("button", { name: "First Test Wallet" }).waitFor();
    await page.getByRole("button", { name: "Second Test Wallet" }).click();
    await page.getByText(`${second.address.slice(0, 6)}`).waitFor();
    assert.deepEqual(
      first.requests.filter((m) => m.startsWith("eth_sign") || m === "personal_sign"),
      [],
    );

    await page.getByLabel("Words (name, description, skills)").fill(name);
    await page.getByRole("button", { name: "Search", exact: true }).click();
    const dialog = page.getByRole("dialog", { name: "Pay for one search" });
    await dialog.getByText("EIP-3009").waitFor();
    assert.match((await dialog.textContent()) ?? "", new RegExp(`${price} base units`));
    await assertAccessible(page, "signature request");
    assert.ok(!second.requests.includes("eth_signTypedData_v4"), "nothing is signed before the person confirms");
    await dialog.getByRole("button", { name: "Sign in my wallet" }).click();
    const results = page.locator("section", { has: page.getByRole("heading", { name: "Search all agents" }) });
    await results.getByText(/agents match/).waitFor({ timeout: 30_000 });
    await results.getByRole("link", { name }).waitFor();
    assert.equal(second.requests.filter((m) => m === "eth_signTypedData_v4").length, 1);

    // The search moved exactly its price from the payer to the platform, on chain.
    await waitUntil("search payment settled", async () => (await usdcOf(second.address)) === payerBefore - price);
    assert.equal(await usdcOf(recipient), recipientBefore + price);
    // The context stays open until the browser closes (a closed context can take a single-process Chromium with it).
    await page.close();
  });

  it("no page reported a script error, a CSP refusal or a request to another origin", () => {
    assert.deepEqual(problems, []);
  });
});

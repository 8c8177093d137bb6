// /docs in a real headless Chromium with every other host unreachable: the reference must come from this server.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { launchChromium } from "../support/browser.ts";
import { api, stack } from "../support/stack.ts";

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

const METHODS = ["get", "put", "post", "delete", "patch", "head", "options"];

describe("API docs", () => {
  it("renders every operation of /openapi.json with requests to other hosts aborted", async () => {
    const spec = await api<{ paths: Record<string, Record<string, unknown>> }>("GET", "/openapi.json");
    assert.equal(spec.status, 200);
    const expected = new Set<string>();
    for (const [path, item] of Object.entries(spec.body.paths)) {
      for (const method of Object.keys(item)) if (METHODS.includes(method)) expected.add(`${method} ${path}`);
    }
    assert.ok(expected.size > 50, `only ${expected.size} operations in the document`);

    const origin = new URL(stack.apiUrl).origin;
    const blocked: string[] = [];
    const context = await browser.newContext();
    await context.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`) || url.startsWith("data:")) return route.continue();
      blocked.push(url);
      return route.abort("internetdisconnected");
    });
    const page = await context.newPage();
    const pageErrors: string[] = [];
    page.on("pageerror", (error) => pageErrors.push(error.message));
    await page.goto(`${stack.apiUrl}/docs`);
    await page
      .locator(".opblock")
      .first()
      .waitFor({ timeout: 30_000 })
      .catch((error: Error) => assert.fail(`no operation rendered (${error.message}); other hosts tried: ${blocked}`));

    const rendered = await page.$$eval(".opblock", (blocks) =>
      blocks.map((block) => {
        const method = block.querySelector(".opblock-summary-method")?.textContent?.trim().toLowerCase();
        const path = block.querySelector(".opblock-summary-path")?.getAttribute("data-path");
        return `${method} ${path}`;
      }),
    );
    const missing = [...expected].filter((op) => !rendered.includes(op));
    assert.deepEqual(missing, [], `operations not rendered: ${missing.join(", ")}`);
    assert.deepEqual(blocked, [], "the page tried to reach other hosts");
    assert.deepEqual(pageErrors, []);
    assert.equal(
      await page
        .locator(".info .title")
        .first()
        .textContent()
        .then((t) => t?.includes("AgentHub")),
      true,
    );
    await context.close();
  });

  it("serves version-pinned assets with a policy that refuses other origins", async () => {
    const res = await fetch(`${stack.apiUrl}/docs`);
    assert.equal(res.status, 200);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /default-src 'self'/);
    assert.match(csp, /script-src 'self';/);
    const html = await res.text();
    assert.doesNotMatch(html, /https?:\/\//, "the page links another host");
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    assert.ok(assets.length >= 3);
    for (const asset of assets) {
      assert.match(asset, /^\/docs\/assets\/\d+\.\d+\.\d+\//, `${asset} is not version-pinned`);
      const got = await fetch(`${stack.apiUrl}${asset}`);
      assert.equal(got.status, 200, asset);
      assert.match(got.headers.get("cache-control") ?? "", /immutable/);
    }
    const unknown = await fetch(`${stack.apiUrl}${assets[0]!.replace(/[^/]+$/, "package.json")}`);
    assert.equal(unknown.status, 404);
  });
});

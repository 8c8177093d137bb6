// The claimURL page: the web app's claim page for a well-formed code (served as the app's HTML), and a static 404
// page without script for anything else, in a real headless Chromium.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import type { Browser } from "playwright-core";
import { registerAgent } from "../support/agents.ts";
import { launchChromium } from "../support/browser.ts";
import { api, db, stack } from "../support/stack.ts";

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await db.end();
});

describe("claim page", () => {
  it("a valid claim link answers the web app's HTML (the app's claim page), kept out of caches, strict CSP", async () => {
    // The claim itself in the browser (connect, the explained signature, the key shown once) is the newcomer's path
    // in test/e2e/web-owner.test.ts; the fallback page below (no app build, white-label sites) has its own checks.
    const reg = await registerAgent({ name: "App Claim" });
    const [claim, home] = await Promise.all([
      fetch(reg.claimURL.replace(stack.env.PUBLIC_URL!, stack.apiUrl)),
      fetch(`${stack.apiUrl}/`),
    ]);
    assert.equal(claim.status, 200);
    const html = await claim.text();
    assert.equal(html, await home.text(), "the same HTML as every app page");
    assert.ok(!html.includes(reg.claimCode));
    assert.equal(claim.headers.get("cache-control"), "no-store");
    const csp = claim.headers.get("content-security-policy") ?? "";
    assert.equal(csp, home.headers.get("content-security-policy"));
    assert.match(csp, /script-src 'self'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval/);
    assert.equal(claim.headers.get("referrer-policy"), "no-referrer");
    // No inline script in it: every script is a hashed asset of this origin.
    for (const [, attrs, body] of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      assert.equal(body!.trim(), "");
      assert.match(attrs!, /src="\/assets\//);
    }
  });

  it("a claim code carrying </script><script> runs nothing: invalid format, static page, hash-based CSP", async () => {
    const payloads = [
      "</script><script>window.__pwned=1</script>",
      'x"-alert(window.__pwned=2)-"',
      "<img src=x onerror=window.__pwned=3>",
    ];
    for (const payload of payloads) {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on("console", (m) => violations.push(m.text()));
      page.on("dialog", (d) => {
        violations.push(`dialog ${d.message()}`);
        void d.dismiss();
      });
      const res = await page.goto(`${stack.apiUrl}/claim/${encodeURIComponent(payload)}`);
      assert.equal(res?.status(), 404, payload);
      await page.getByText("not valid").waitFor();
      assert.equal(await page.evaluate("window.__pwned"), undefined, payload);
      assert.ok(!violations.some((v) => v.startsWith("dialog")), violations.join("\n"));
      await page.close();
    }
    // The header allows the page's own script and style by hash, nothing inline.
    const res = await api("GET", `/claim/${encodeURIComponent(payloads[0]!)}`);
    const csp = res.headers.get("content-security-policy") ?? "";
    assert.match(csp, /script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    assert.doesNotMatch(csp, /unsafe-inline/);
    assert.ok(!String(res.body).includes("__pwned"), "the code is not echoed into the page");
  });

  it("the same page for every valid code: the code never appears in the HTML", async () => {
    const reg = await registerAgent({ name: "Static Page" });
    const res = await api("GET", `/claim/${reg.claimCode}`);
    assert.equal(res.status, 200);
    assert.ok(!String(res.body).includes(reg.claimCode));
    const other = await api("GET", `/claim/${"A".repeat(32)}`);
    assert.equal(other.body, res.body);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { baseDomain, orgSiteUrl } from "../src/lib/site-url.ts";
import { brandCss, brandOf, escapeHtml, pageCsp } from "../src/routes/white-label/brand.ts";
import { siteHostOf } from "../src/routes/white-label/index.ts";

const env = { PUBLIC_URL: "https://api.agenthub.example", ORG_BASE_DOMAIN: "agents.example.com" };

describe("white-label hosts", () => {
  it("derives the base domain and the site URL", () => {
    assert.equal(baseDomain(env), "agents.example.com");
    assert.equal(baseDomain({ PUBLIC_URL: "https://api.agenthub.example" }), "api.agenthub.example");
    assert.equal(baseDomain({ PUBLIC_URL: "http://127.0.0.1:3000" }), "localhost");
    assert.equal(orgSiteUrl(env, "acme"), "https://acme.agents.example.com/");
    assert.equal(orgSiteUrl({ PUBLIC_URL: "http://localhost:3000" }, "acme"), "http://acme.localhost:3000/");
  });

  it("reads a Host header: subdomain, custom domain, or the service itself", () => {
    assert.deepEqual(siteHostOf("Acme.Agents.Example.com:443", env), {
      kind: "subdomain",
      subdomain: "acme",
      host: "acme.agents.example.com",
    });
    assert.deepEqual(siteHostOf("brand.example.org.", env), { kind: "domain", host: "brand.example.org" });
    for (const service of [
      "agents.example.com",
      "api.agenthub.example",
      "127.0.0.1:3000",
      "[::1]:3000",
      "localhost",
      "",
      undefined,
    ]) {
      assert.equal(siteHostOf(service, env), null, String(service));
    }
    // Not a valid label: nested or malformed subdomains are no organization's.
    assert.equal(siteHostOf("a.b.agents.example.com", env), null);
    assert.equal(siteHostOf('x"><b>.agents.example.com', env), null);
    assert.equal(siteHostOf("-bad-.example.org", env), null);
  });
});

describe("white-label pages", () => {
  it("escapes and re-checks branding", () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;");
    const b = brandOf({
      name: "X",
      branding: {
        primaryColor: "red;}</style>",
        logo: "javascript:alert(1)",
        fontFamily: "a;b",
        customCSS: "</style>",
      },
    });
    assert.equal(b.primaryColor, "#3b5bdb");
    assert.equal(b.logo, null);
    assert.equal(b.fontFamily, "system-ui");
    assert.equal(b.customCSS, "");
    assert.ok(brandCss(b).startsWith(":root{--primary:#3b5bdb;"));
  });

  it("allows no inline code: the claim script by hash only, images from the logo's origin only", () => {
    const b = brandOf({ name: "X", branding: { logo: "https://cdn.acme.example/logo.png?v=1" } });
    const page = pageCsp(b);
    assert.ok(!page.includes("script-src"));
    assert.ok(page.includes("img-src https://cdn.acme.example;"));
    assert.ok(!page.includes("unsafe-inline"));
    assert.match(pageCsp(b, { claim: true }), /script-src 'sha256-[A-Za-z0-9+/]+=*'; style-src 'self'/);
  });
});

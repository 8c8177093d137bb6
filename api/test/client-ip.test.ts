import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Hono } from "hono";
import { clientIp, rateKeyOf } from "../src/lib/client-ip.ts";

/** What clientIp answers for an X-Forwarded-For header with `hops` trusted proxies (no socket here: "unknown"). */
async function ipFor(forwarded: string | undefined, hops: number): Promise<string> {
  const app = new Hono().get("/", (c) => c.text(clientIp(c, hops)));
  const res = await app.request("/", { headers: forwarded === undefined ? {} : { "x-forwarded-for": forwarded } });
  return res.text();
}

describe("clientIp", () => {
  it("takes the entry `hops` from the right; entries further left are the client's own words", async () => {
    assert.equal(await ipFor("1.1.1.1, 10.0.0.2", 1), "10.0.0.2");
    assert.equal(await ipFor("1.1.1.1,10.0.0.2, 10.0.0.3", 2), "10.0.0.2");
    assert.equal(await ipFor("10.0.0.2", 1), "10.0.0.2");
  });

  it("with fewer entries than proxies, the leftmost (written by one of ours); none: the socket peer", async () => {
    assert.equal(await ipFor("10.0.0.2", 3), "10.0.0.2");
    assert.equal(await ipFor(undefined, 1), "unknown");
    assert.equal(await ipFor(" , ", 1), "unknown");
  });

  it("ignores X-Forwarded-For entirely without trusted proxies", async () => {
    assert.equal(await ipFor("1.1.1.1", 0), "unknown");
  });
});

describe("rateKeyOf", () => {
  it("keys IPv6 clients by their /64 and IPv4-mapped addresses as IPv4", () => {
    assert.equal(rateKeyOf("2001:db8:1:2:aaaa::1"), "2001:db8:1:2::/64");
    assert.equal(rateKeyOf("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
    assert.equal(rateKeyOf("2001:0db8:0001:0002::9"), "2001:db8:1:2::/64");
    assert.notEqual(rateKeyOf("2001:db8:1:3::1"), rateKeyOf("2001:db8:1:2::1"));
    assert.equal(rateKeyOf("::1"), "0:0:0:0::/64");
    assert.equal(rateKeyOf("fe80::1%eth0"), "fe80:0:0:0::/64");
    assert.equal(rateKeyOf("::ffff:203.0.113.7"), "203.0.113.7");
    assert.equal(rateKeyOf("::FFFF:203.0.113.7"), "203.0.113.7");
    assert.equal(rateKeyOf("::ffff:cb00:7107"), "203.0.113.7");
    assert.equal(rateKeyOf("203.0.113.7"), "203.0.113.7");
    assert.equal(rateKeyOf("unknown"), "unknown");
  });
});

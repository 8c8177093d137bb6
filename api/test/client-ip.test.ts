import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { Hono } from "hono";
import { clientIp } from "../src/lib/client-ip.ts";

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

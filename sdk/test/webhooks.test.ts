import assert from "node:assert/strict";
import { createHmac } from "node:crypto";
import { describe, it } from "node:test";
import { Webhook } from "standardwebhooks";
import { signWebhook, verifyWebhook, WebhookVerificationError } from "../src/webhooks.ts";

const secret = `whsec_${Buffer.from("0123456789abcdef0123456789abcdef").toString("base64")}`;
const body = JSON.stringify({
  id: "evt_1",
  event: "bounty.completed",
  timestamp: "2026-01-01T00:00:00Z",
  organization: "org_1",
  data: { bountyId: 7 },
});
const now = Math.floor(Date.now() / 1000);

/** Headers as AgentHub sends them, built with the Standard Webhooks reference library and node:crypto. */
function delivered(opts: { secret?: string; body?: string; at?: number } = {}) {
  const s = opts.secret ?? secret;
  const b = opts.body ?? body;
  const at = opts.at ?? now;
  const standard = new Webhook(s.startsWith("whsec_") ? s : Buffer.from(s, "latin1").toString("base64")).sign(
    "evt_1",
    new Date(at * 1000),
    b,
  );
  return {
    "webhook-id": "evt_1",
    "webhook-timestamp": String(at),
    "webhook-signature": standard,
    "X-AgentHub-Signature": `sha256=${createHmac("sha256", s).update(b, "utf8").digest("hex")}`,
    "Content-Type": "application/json",
  };
}

describe("verifyWebhook", () => {
  it("accepts a delivery signed like AgentHub (both signatures), any header case, Headers or a record", async () => {
    const event = await verifyWebhook({ secret, body, headers: delivered() });
    assert.equal(event.id, "evt_1");
    assert.deepEqual(event.data, { bountyId: 7 });
    const lower = Object.fromEntries(Object.entries(delivered()).map(([k, v]) => [k.toLowerCase(), v]));
    assert.equal((await verifyWebhook({ secret, body, headers: new Headers(lower) })).event, "bounty.completed");
    assert.equal((await verifyWebhook({ secret, body: new TextEncoder().encode(body), headers: lower })).id, "evt_1");
  });

  it("accepts an organization's own (non-whsec) secret as raw bytes", async () => {
    const own = "my own shared secret!";
    assert.equal((await verifyWebhook({ secret: own, body, headers: delivered({ secret: own }) })).id, "evt_1");
  });

  it("refuses a tampered body, a wrong secret, a stale or future timestamp, a forged spec signature", async () => {
    const reject = (p: Promise<unknown>, re: RegExp) =>
      assert.rejects(p, (e: Error) => e instanceof WebhookVerificationError && re.test(e.message));
    await reject(verifyWebhook({ secret, body: body.replace("7", "8"), headers: delivered() }), /does not match/);
    await reject(
      verifyWebhook({ secret: `whsec_${Buffer.alloc(32, 1).toString("base64")}`, body, headers: delivered() }),
      /webhook-signature does not match/,
    );
    await reject(verifyWebhook({ secret, body, headers: delivered({ at: now - 301 }), now }), /too old/);
    await reject(verifyWebhook({ secret, body, headers: delivered({ at: now + 301 }), now }), /future/);
    const forged = { ...delivered(), "X-AgentHub-Signature": `sha256=${"ab".repeat(32)}` };
    await reject(verifyWebhook({ secret, body, headers: forged }), /X-AgentHub-Signature/);
    const { "webhook-signature": _, ...unsigned } = delivered();
    await reject(verifyWebhook({ secret, body, headers: unsigned }), /missing/);
  });

  it("signWebhook produces what the reference library verifies", async () => {
    const headers = await signWebhook({ secret, id: "evt_1", body, timestamp: now });
    assert.deepEqual(new Webhook(secret).verify(body, headers), JSON.parse(body));
    assert.equal(headers["X-AgentHub-Signature"], delivered()["X-AgentHub-Signature"]);
  });
});

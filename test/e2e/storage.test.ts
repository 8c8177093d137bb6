// Bounded storage: the prune job (every 5 s in the test stack) deletes rows whose purpose has ended and keeps the
// rest, including every spec-scheme payment row (the replay protection).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, describe, it } from "node:test";
import { api, db, stack, waitUntil } from "../support/stack.ts";

after(() => db.end());

const uniq = () => randomBytes(6).toString("hex");
const count = async (sql: string, params: unknown[]) => Number((await db.query(sql, params)).rows[0].n);

describe("storage pruning", () => {
  it("deletes spent nonces, tokens, windows, old deliveries and spent x402 rows; keeps live rows and spec payments", async () => {
    const tag = uniq();
    const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
    const org = await api("POST", "/api/organizations", {
      headers: admin,
      body: { name: `Prune ${tag}`, subdomain: `prune-${tag}` },
    });
    assert.equal(org.status, 201, JSON.stringify(org.body));
    const hook = await api("POST", `/api/organizations/${org.body.id}/webhooks`, {
      headers: admin,
      body: { url: "https://example.com/hook", events: ["agent.registered"] },
    });
    assert.equal(hook.status, 201, JSON.stringify(hook.body));

    const old = "now() - interval '40 days'";
    await db.query(
      `insert into api.auth_nonce (nonce, expires_at) values ($1, ${old}), ($2, now() + interval '10 minutes')`,
      [`old-${tag}`, `new-${tag}`],
    );
    await db.query(
      `insert into api.access_token (token_hash, address, scope, expires_at) values
         ($1, '0x0', 'governance', ${old}), ($2, '0x0', 'governance', now() + interval '1 hour')`,
      [`old-${tag}`, `new-${tag}`],
    );
    await db.query(`insert into api.rate_limit (key, window_start, count) values ($1, ${old}, 1), ($2, now(), 1)`, [
      `old-${tag}:60`,
      `new-${tag}:60`,
    ]);
    await db.query(
      `insert into api.org_event (id, org_id, event, body, created_at) values
         ($1, $3, 'agent.registered', '{}', ${old}), ($2, $3, 'agent.registered', '{}', now())`,
      [`evt_old_${tag}`, `evt_new_${tag}`, org.body.id],
    );
    await db.query(
      `insert into api.webhook_delivery (event_id, webhook_id, status, delivered_at) values
         ($1, $3, 'delivered', ${old}), ($2, $3, 'delivered', now())`,
      [`evt_old_${tag}`, `evt_new_${tag}`, hook.body.id],
    );
    const expired = Math.floor(Date.now() / 1000) - 3 * 86_400;
    const live = Math.floor(Date.now() / 1000) + 3_600;
    const x402 = (nonce: string, validBefore: number, status: string, delivered: boolean) =>
      db.query(
        `insert into api.payment (scheme, payer, nonce, recipient, amount, endpoint, status, delivered, payload)
         values ('x402-exact', $1, $2, '0x0', 1000, '/api/intelligence/search', $3, $4, $5::jsonb)`,
        [
          `0xpayer${tag}`,
          nonce,
          status,
          delivered,
          JSON.stringify({ authorization: { validBefore: String(validBefore) } }),
        ],
      );
    await x402(`spent-${tag}`, expired, "COMPLETED", true);
    await x402(`failed-${tag}`, expired, "FAILED", false);
    await x402(`undelivered-${tag}`, expired, "COMPLETED", false); // its owner may still collect the response
    await x402(`live-${tag}`, live, "COMPLETED", true); // still valid: keep
    await db.query(
      `insert into api.payment (scheme, payer, nonce, recipient, amount, endpoint, status, created_at)
       values ('agenthub', $1, $2, '0x0', 1, '/api/intelligence/search', 'COMPLETED', now() - interval '400 days')`,
      [`0xpayer${tag}`, `spec-${tag}`],
    );

    await waitUntil(
      "prune pass",
      async () => (await count("select count(*) n from api.auth_nonce where nonce = $1", [`old-${tag}`])) === 0,
      30_000,
    );
    await waitUntil(
      "every rule ran",
      async () =>
        (await count("select count(*) n from api.org_event where id = $1", [`evt_old_${tag}`])) === 0 &&
        (await count("select count(*) n from api.payment where nonce = $1", [`spent-${tag}`])) === 0,
      30_000,
    );
    const left = async (table: string, column: string, value: string) =>
      count(`select count(*) n from api.${table} where ${column} = $1`, [value]);
    assert.equal(await left("auth_nonce", "nonce", `new-${tag}`), 1);
    assert.equal(await left("access_token", "token_hash", `old-${tag}`), 0);
    assert.equal(await left("access_token", "token_hash", `new-${tag}`), 1);
    assert.equal(await left("rate_limit", "key", `old-${tag}:60`), 0);
    assert.equal(await left("rate_limit", "key", `new-${tag}:60`), 1);
    assert.equal(await left("org_event", "id", `evt_new_${tag}`), 1);
    assert.equal(await left("webhook_delivery", "event_id", `evt_new_${tag}`), 1);
    assert.equal(await left("payment", "nonce", `failed-${tag}`), 0);
    assert.equal(await left("payment", "nonce", `undelivered-${tag}`), 1);
    assert.equal(await left("payment", "nonce", `live-${tag}`), 1);
    assert.equal(await left("payment", "nonce", `spec-${tag}`), 1, "spec-scheme payments are the replay record");
  });
});

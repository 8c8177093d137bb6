// Organization webhooks against the real stack: a real HTTP receiver on loopback gets signed deliveries (the test
// checks the HMAC itself), retries after 500 answers, exactly-once delivery with two API processes running the
// dispatcher, events from registration, profile updates, verifications, reputation and a run (bounty.created,
// bounty.claimed, bounty.completed), and the delivery log.
import assert from "node:assert/strict";
import { createHmac, timingSafeEqual } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, describe, it, mock } from "node:test";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { claimAgent, depositDirect, faucet, signedAction } from "../support/agents.ts";
import { startExtraApi } from "../support/processes.ts";
import { claim, openRun, step } from "../support/runs.ts";
import { api, db, stack, waitUntil } from "../support/stack.ts";

const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const uniq = () => Math.random().toString(36).slice(2, 10);
const code = (res: { body: { error?: { code: string } } }) => res.body.error?.code;

interface Received {
  path: string;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** A webhook receiver: records every request; `plan[path]` lists the statuses to answer in turn (then 200). */
class Receiver {
  received: Received[] = [];
  plan: Record<string, number[]> = {};
  private server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const path = req.url ?? "/";
      this.received.push({ path, headers: req.headers, body: Buffer.concat(chunks).toString("utf8") });
      const status = this.plan[path]?.shift() ?? 200;
      res.writeHead(status, { "content-type": "text/plain" }).end(status === 200 ? "ok" : "nope");
    });
  });
  url = "";
  async start() {
    await new Promise<void>((r) => this.server.listen(0, "127.0.0.1", r));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }
  at(path: string) {
    return this.received.filter((r) => r.path === path);
  }
  stop() {
    return new Promise<void>((r) => this.server.close(() => r()));
  }
}

/** What a receiver does (the example in docs/curl.md): HMAC-SHA256 of the raw body, hex, constant-time compare. */
function validSignature(secret: string, raw: string, header: string | string[] | undefined): boolean {
  if (typeof header !== "string" || !header.startsWith("sha256=")) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(raw).digest("hex"), "hex");
  const given = Buffer.from(header.slice(7), "hex");
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function createOrg(plan = "starter") {
  const res = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name: `Hooks ${uniq()}`, subdomain: `hooks-${uniq()}`, plan },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; apiKey: string; apiSecret: string };
}

const auth = (o: { apiKey: string; apiSecret: string }) => ({ "x-api-key": o.apiKey, "x-api-secret": o.apiSecret });

async function addWebhook(o: { id: string; apiKey: string; apiSecret: string }, body: Record<string, unknown>) {
  const res = await api("POST", `/api/organizations/${o.id}/webhooks`, { headers: auth(o), body });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as { id: string; url: string; events: string[]; secret: string };
}

async function deliveries(o: { id: string; apiKey: string; apiSecret: string }, webhookId: string) {
  const res = await api("GET", `/api/organizations/${o.id}/webhooks/${webhookId}/deliveries`, { headers: auth(o) });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body.deliveries as {
    eventId: string;
    event: string;
    status: string;
    attempts: number;
    lastStatusCode: number | null;
    lastError: string | null;
  }[];
}

describe("organization webhooks", () => {
  const receiver = new Receiver();
  before(() => receiver.start());
  after(() => receiver.stop());

  it("delivers agent.registered with a valid HMAC signature and the spec's payload", async () => {
    const o = await createOrg();
    const path = `/registered-${uniq()}`;
    const hook = await addWebhook(o, { url: `${receiver.url}${path}`, events: ["agent.registered"] });
    assert.match(hook.secret, /^whsec_[A-Za-z0-9+/]{43}=$/);
    assert.equal(Buffer.from(hook.secret.slice(6), "base64").length, 32);
    const reg = await api("POST", "/api/agents/register", {
      headers: { authorization: `Bearer ${o.apiKey}` },
      body: { name: "Hooked Agent", capabilities: ["coding"] },
    });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));

    const [got] = await waitUntil(
      "agent.registered delivery",
      async () => receiver.at(path).length > 0 && receiver.at(path),
    );
    assert.ok(got);
    assert.ok(validSignature(hook.secret, got.body, got.headers["x-agenthub-signature"]), "bad signature");
    assert.ok(!validSignature("whsec_wrong", got.body, got.headers["x-agenthub-signature"]));
    const payload = JSON.parse(got.body);
    assert.match(payload.id, /^evt_[0-9a-f]{32}$/);
    assert.equal(payload.event, "agent.registered");
    assert.equal(payload.organization, o.id);
    assert.ok(!Number.isNaN(Date.parse(payload.timestamp)));
    assert.deepEqual(payload.data, { agentId: reg.body.agentId, name: "Hooked Agent", wallet: reg.body.walletAddress });
    assert.equal(got.headers["x-agenthub-event-id"], payload.id);
    assert.equal(got.headers["x-agenthub-event"], "agent.registered");
    assert.equal(got.headers["content-type"], "application/json");
    assert.ok(Math.abs(Number(got.headers["x-agenthub-timestamp"]) - Date.now() / 1000) < 60);

    const log = await waitUntil("delivery logged", async () => {
      const d = await deliveries(o, hook.id);
      return d[0]?.status === "delivered" && d;
    });
    assert.equal(log.length, 1);
    assert.equal(log[0]!.eventId, payload.id);
    assert.equal(log[0]!.attempts, 1);
    assert.equal(log[0]!.lastStatusCode, 200);

    // An agent registered without the key belongs to no organization: nothing is queued.
    // Queuing happens with the registration itself, so the outbox is final when the registration answers.
    const plain = await api("POST", "/api/agents/register", { body: { name: "Outsider" } });
    assert.equal(plain.status, 201);
    const queued = await db.query("select count(*)::int n from api.org_event where agent_id = $1", [
      plain.body.agentId,
    ]);
    assert.equal(queued.rows[0].n, 0);
  });

  it("signs the Standard Webhooks way too: a standardwebhooks receiver accepts it, refuses tampered, stale and replayed", async () => {
    const o = await createOrg();
    const path = `/standard-${uniq()}`;
    const hook = await addWebhook(o, { url: `${receiver.url}${path}`, events: ["agent.registered"] });
    const reg = await api("POST", "/api/agents/register", {
      headers: { authorization: `Bearer ${o.apiKey}` },
      body: { name: "Standard Agent" },
    });
    assert.equal(reg.status, 201, JSON.stringify(reg.body));
    const [got] = await waitUntil("delivery", async () => receiver.at(path).length > 0 && receiver.at(path));
    assert.ok(got);
    const headers = got.headers as Record<string, string>;
    const receiverSide = new Webhook(hook.secret);
    const event = receiverSide.verify(got.body, headers) as { id: string; event: string };
    assert.equal(event.event, "agent.registered");
    assert.equal(headers["webhook-id"], event.id);
    assert.match(headers["webhook-signature"]!, /^v1,[A-Za-z0-9+/]{43}=$/);
    // The spec's signature still comes along.
    assert.ok(validSignature(hook.secret, got.body, headers["x-agenthub-signature"]));

    const refuses = (what: string, body: string, h: Record<string, string>) =>
      assert.throws(() => receiverSide.verify(body, h), WebhookVerificationError, what);
    refuses("another secret", got.body, {
      ...headers,
      "webhook-signature": new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).sign(
        event.id,
        new Date(),
        got.body,
      ),
    });
    refuses("a tampered body", got.body.replace("Standard Agent", "Evil Agent"), headers);
    refuses("another event id", got.body, { ...headers, "webhook-id": "evt_other" });
    // A captured delivery sent again with a fresh timestamp: the signature covers the timestamp.
    refuses("a refreshed timestamp", got.body, {
      ...headers,
      "webhook-timestamp": String(Math.floor(Date.now() / 1000) + 1),
    });
    // The same delivery replayed 6 minutes later, headers untouched: stale.
    const sixMinutesLater = Date.now() + 6 * 60_000;
    mock.method(Date, "now", () => sixMinutesLater);
    try {
      assert.throws(() => receiverSide.verify(got.body, headers), /too old/);
    } finally {
      mock.restoreAll();
    }

    // A secret of one's own (not whsec_) keys Standard Webhooks as raw bytes.
    const ownPath = `/standard-own-${uniq()}`;
    const own = `my-own-secret-${uniq()}`;
    await addWebhook(o, { url: `${receiver.url}${ownPath}`, events: ["agent.registered"], secret: own });
    assert.equal(
      (
        await api("POST", "/api/agents/register", {
          headers: { authorization: `Bearer ${o.apiKey}` },
          body: { name: "Own Secret" },
        })
      ).status,
      201,
    );
    const [ownGot] = await waitUntil("delivery", async () => receiver.at(ownPath).length > 0 && receiver.at(ownPath));
    assert.ok(ownGot);
    new Webhook(own, { format: "raw" }).verify(ownGot.body, ownGot.headers as Record<string, string>);

    // A whsec_ secret must be what it claims.
    for (const secret of [
      "whsec_not*base64*at*all*here",
      `whsec_${Buffer.alloc(8).toString("base64")}`,
      "secret-with-ümlaut-1234",
    ]) {
      const res = await api("POST", `/api/organizations/${o.id}/webhooks`, {
        headers: auth(o),
        body: { url: `${receiver.url}/x`, events: ["agent.registered"], secret },
      });
      assert.equal(res.status, 400, secret);
      assert.equal(code(res), "INVALID_WEBHOOK_SECRET");
    }
  });

  it("retries a failed delivery with backoff (500, 500, then 200) and logs every attempt", async () => {
    const o = await createOrg();
    const path = `/flaky-${uniq()}`;
    receiver.plan[path] = [500, 500];
    const secret = `my-own-secret-${uniq()}`;
    const hook = await addWebhook(o, { url: `${receiver.url}${path}`, events: ["agent.registered"], secret });
    assert.equal(hook.secret, secret);
    const reg = await api("POST", `/api/organizations/${o.id}/agents`, { headers: auth(o), body: { name: "Flaky" } });
    assert.equal(reg.status, 201);

    const first = await waitUntil("first failed attempt", async () => {
      const d = await deliveries(o, hook.id);
      return d[0] && d[0].attempts >= 1 && d;
    });
    assert.ok(first[0]!.status === "pending" || first[0]!.status === "delivered");
    const done = await waitUntil(
      "delivered after retries",
      async () => {
        const d = await deliveries(o, hook.id);
        return d[0]?.status === "delivered" && d;
      },
      30_000,
    );
    assert.equal(done[0]!.attempts, 3);
    assert.equal(done[0]!.lastStatusCode, 200);
    assert.equal(done[0]!.lastError, null);
    const got = receiver.at(path);
    assert.equal(got.length, 3);
    // Every attempt carries the same body (same event id) and a valid signature.
    assert.equal(new Set(got.map((g) => g.body)).size, 1);
    for (const g of got) assert.ok(validSignature(secret, g.body, g.headers["x-agenthub-signature"]));
    // Backoff: the base is 1 s in tests, so attempt 3 comes at least 1 + 4 s after attempt 1.
    const row = await db.query(
      "select extract(epoch from last_attempt_at - created_at)::float8 s from api.webhook_delivery where webhook_id = $1",
      [hook.id],
    );
    assert.ok(row.rows[0].s >= 4.5, `third attempt after ${row.rows[0].s} s`);
  });

  it("gives up after the last attempt and marks the delivery failed", async () => {
    const o = await createOrg();
    const path = `/down-${uniq()}`;
    const hook = await addWebhook(o, { url: `${receiver.url}${path}`, events: ["agent.registered"] });
    const reg = await api("POST", `/api/organizations/${o.id}/agents`, { headers: auth(o), body: { name: "Doomed" } });
    assert.equal(reg.status, 201);
    await waitUntil("first attempt", async () => receiver.at(path).length > 0);
    // Fast-forward: pretend seven attempts already failed and make the last one due now.
    receiver.plan[path] = [503];
    await db.query(
      "update api.webhook_delivery set attempts = 7, next_attempt_at = now(), status = 'pending' where webhook_id = $1",
      [hook.id],
    );
    const failed = await waitUntil("failed delivery", async () => {
      const d = await deliveries(o, hook.id);
      return d[0]?.status === "failed" && d;
    });
    assert.equal(failed[0]!.attempts, 8);
    assert.equal(failed[0]!.lastStatusCode, 503);
    assert.equal(failed[0]!.lastError, "HTTP_503");
  });

  it("delivers each event once per webhook with two API processes dispatching", async () => {
    const second = await startExtraApi();
    try {
      const o = await createOrg();
      const paths = Array.from({ length: 4 }, (_, i) => `/once-${i}-${uniq()}`);
      for (const p of paths) await addWebhook(o, { url: `${receiver.url}${p}`, events: ["agent.registered"] });
      // One registration through each process.
      const viaFirst = await api("POST", "/api/agents/register", {
        headers: { "x-api-key": o.apiKey },
        body: { name: "One" },
      });
      const res2 = await fetch(`${second.url}/api/agents/register`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-api-key": o.apiKey,
          "x-forwarded-for": `10.77.${Math.floor(Math.random() * 250)}.1`,
        },
        body: JSON.stringify({ name: "Two" }),
      });
      assert.equal(viaFirst.status, 201);
      assert.equal(res2.status, 201, await res2.clone().text());
      await waitUntil("8 deliveries", async () => paths.every((p) => receiver.at(p).length >= 2), 30_000);
      // Once every delivery row reads delivered, none is attempted again: the receiver's counts are final.
      await waitUntil("8 deliveries recorded", async () => {
        const r = await db.query(
          `select count(*) filter (where d.status = 'delivered')::int done, count(*)::int n from api.webhook_delivery d
             join api.org_webhook h on h.id = d.webhook_id where h.org_id = $1`,
          [o.id],
        );
        return r.rows[0].n === 8 && r.rows[0].done === 8;
      });
      for (const p of paths) {
        const ids = receiver.at(p).map((r) => JSON.parse(r.body).id);
        assert.equal(ids.length, 2, `${p} got ${ids.length} deliveries`);
        assert.equal(new Set(ids).size, 2);
      }
      const rows = await db.query(
        `select count(*)::int n, sum(attempts)::int attempts from api.webhook_delivery d
           join api.org_webhook h on h.id = d.webhook_id where h.org_id = $1 and d.status = 'delivered'`,
        [o.id],
      );
      assert.deepEqual(rows.rows[0], { n: 8, attempts: 8 });
    } finally {
      await second.stop();
    }
  });

  it("emits agent.updated, verification.completed and reputation.updated for organization agents", async () => {
    const o = await createOrg();
    const path = `/lifecycle-${uniq()}`;
    const hook = await addWebhook(o, {
      url: `${receiver.url}${path}`,
      events: ["agent.updated", "verification.completed", "reputation.updated"],
    });
    const reg = await api("POST", "/api/agents/register", {
      headers: { "x-api-key": o.apiKey },
      body: { name: "Life" },
    });
    assert.equal(reg.status, 201);
    const agentId = reg.body.agentId as number;
    const { owner, agentKey } = await claimAgent(agentId, reg.body.claimCode);
    const signed = await signedAction(owner.key, "update-profile", "agent", agentId);
    const patched = await api("PATCH", `/api/agents/${agentId}`, { body: { ...signed, name: "Life Renamed" } });
    assert.equal(patched.status, 200, JSON.stringify(patched.body));

    await faucet(reg.body.walletAddress, 150_000_000n, 10n ** 16n);
    await depositDirect(agentKey, agentId, 150_000_000n); // stake badges prove stake locked in the vault
    const requested = await api("POST", "/api/verifications/stake", { body: { agentId, minStakeAmount: "100000000" } });
    assert.equal(requested.status, 201, JSON.stringify(requested.body));
    const verified = await api("POST", `/api/verifications/${requested.body.verification.id}/verify-stake`);
    assert.equal(verified.status, 200, JSON.stringify(verified.body));

    const events = await waitUntil(
      "three event kinds",
      async () => {
        const got = receiver.at(path).map((r) => JSON.parse(r.body));
        const kinds = new Set(got.map((e) => e.event));
        return (
          kinds.has("agent.updated") && kinds.has("verification.completed") && kinds.has("reputation.updated") && got
        );
      },
      30_000,
    );
    for (const r of receiver.at(path))
      assert.ok(validSignature(hook.secret, r.body, r.headers["x-agenthub-signature"]));
    const updated = events.find((e) => e.event === "agent.updated");
    assert.equal(updated.data.agentId, agentId);
    assert.equal(updated.data.name, "Life Renamed");
    const completed = events.find((e) => e.event === "verification.completed");
    assert.equal(completed.data.agentId, agentId);
    assert.equal(completed.data.type, "stake");
    assert.equal(completed.data.status, "VERIFIED");
    const rep = events.filter((e) => e.event === "reputation.updated").at(-1);
    assert.equal(rep.data.agentId, agentId);
    assert.equal(typeof rep.data.score, "number");
    assert.ok(events.every((e) => e.organization === o.id));
  });

  it("emits bounty.created, bounty.claimed and bounty.completed once each for a run between organization agents", async () => {
    const o = await createOrg();
    const path = `/bounty-${uniq()}`;
    const hook = await addWebhook(o, {
      url: `${receiver.url}${path}`,
      events: ["bounty.created", "bounty.claimed", "bounty.completed"],
    });
    const register = async (name: string) => {
      const reg = await api("POST", "/api/agents/register", { headers: { "x-api-key": o.apiKey }, body: { name } });
      assert.equal(reg.status, 201, JSON.stringify(reg.body));
      const claimed = await claimAgent(reg.body.agentId, reg.body.claimCode);
      return { agentId: reg.body.agentId as number, wallet: reg.body.walletAddress, ...claimed };
    };
    // The poster is an organization agent's owner; the worker is another organization agent, staked.
    const poster = await register("Poster");
    const worker = await register("Worker");
    await faucet(poster.owner.address, 100_000_000n);
    await faucet(worker.wallet, 20_000_000n, 10n ** 17n);
    const stakeTx = await depositDirect(worker.agentKey, worker.agentId, 20_000_000n);
    const staked = await api("POST", `/api/agents/${worker.agentId}/stake`, {
      body: { amount: "20000000", txHash: stakeTx, walletAddress: worker.wallet },
    });
    assert.equal(staked.status, 200, JSON.stringify(staked.body));

    const run = await openRun(poster.owner, { reward: 12_000_000n, title: "Hooked bounty" });
    const id = run.bountyId;
    const claimed = await claim(worker.owner.key, worker.owner.address, id, worker.agentId);
    assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
    // The worker's wallet signs the requests, its owner the on-chain consents.
    const asOwner = { consentKey: worker.owner.key };
    assert.equal((await step(worker.agentKey, id, "start", "start-run", {}, asOwner)).status, 200);
    const submitted = await step(
      worker.agentKey,
      id,
      "submit",
      "submit-run",
      { deliverable: { answer: "a + b" } },
      asOwner,
    );
    assert.equal(submitted.status, 200, JSON.stringify(submitted.body));
    const approved = await step(poster.owner.key, id, "approve", "approve-run");
    assert.equal(approved.status, 200, JSON.stringify(approved.body));

    const events = await waitUntil(
      "three bounty events",
      async () => {
        const got = receiver.at(path).map((r) => JSON.parse(r.body));
        return got.length >= 3 && got;
      },
      30_000,
    );
    await waitUntil("three deliveries recorded", async () => {
      const d = await deliveries(o, hook.id);
      return d.length === 3 && d.every((x) => x.status === "delivered");
    });
    const all = receiver.at(path);
    assert.equal(all.length, 3, all.map((r) => r.body).join("\n"));
    for (const r of all) {
      assert.ok(validSignature(hook.secret, r.body, r.headers["x-agenthub-signature"]), "bad signature");
      assert.equal(r.headers["x-agenthub-event"], JSON.parse(r.body).event);
    }
    assert.deepEqual(events.map((e) => e.event).sort(), ["bounty.claimed", "bounty.completed", "bounty.created"]);
    assert.equal(new Set(events.map((e) => e.id)).size, 3);
    assert.ok(events.every((e) => e.organization === o.id && !Number.isNaN(Date.parse(e.timestamp))));
    const byName = Object.fromEntries(events.map((e) => [e.event, e.data]));
    const fundTx = await db.query("select funding_tx from api.run where id = $1", [id]);
    assert.deepEqual(byName["bounty.created"], {
      bountyId: id,
      agentId: poster.agentId,
      poster: poster.owner.address,
      title: "Hooked bounty",
      reward: "12000000",
      deadline: byName["bounty.created"].deadline,
      txHash: byName["bounty.created"].txHash,
    });
    assert.equal(byName["bounty.created"].txHash.toLowerCase(), fundTx.rows[0].funding_tx);
    assert.ok(!Number.isNaN(Date.parse(byName["bounty.created"].deadline)));
    assert.deepEqual(byName["bounty.claimed"], {
      bountyId: id,
      agentId: worker.agentId,
      reward: "12000000",
      txHash: claimed.body.txHash,
    });
    assert.deepEqual(byName["bounty.completed"], {
      bountyId: id,
      agentId: worker.agentId,
      posterAgentId: poster.agentId,
      reward: "12000000",
      txHash: approved.body.txHash,
    });
    const log = await deliveries(o, hook.id);
    assert.equal(log.length, 3);
    assert.ok(log.every((d) => d.status === "delivered" && d.attempts === 1));

    // A dispute resolved for the agent approves and pays the run: bounty.completed too (once).
    const second = await openRun(poster.owner, { reward: 11_000_000n, title: "Disputed bounty" });
    assert.equal((await claim(worker.owner.key, worker.owner.address, second.bountyId, worker.agentId)).status, 200);
    const sub2 = await step(
      worker.agentKey,
      second.bountyId,
      "submit",
      "submit-run",
      { deliverable: { answer: 2 } },
      asOwner,
    );
    assert.equal(sub2.status, 200, JSON.stringify(sub2.body));
    const disputed = await step(
      worker.agentKey,
      second.bountyId,
      "dispute",
      "dispute-run",
      { reason: "silent poster" },
      asOwner,
    );
    assert.equal(disputed.status, 200, JSON.stringify(disputed.body));
    const resolved = await api("POST", `/api/runs/${second.bountyId}/resolve`, {
      headers: admin,
      body: { outcome: "agent" },
    });
    assert.equal(resolved.status, 200, JSON.stringify(resolved.body));
    assert.equal(resolved.body.run.state, "APPROVED");
    const completed = await waitUntil("bounty.completed after resolve", async () => {
      const got = receiver
        .at(path)
        .map((r) => JSON.parse(r.body))
        .filter((e) => e.event === "bounty.completed" && e.data.bountyId === second.bountyId);
      return got.length > 0 && got;
    });
    await waitUntil("every delivery recorded", async () => {
      const d = await deliveries(o, hook.id);
      return d.length === 6 && d.every((x) => x.status === "delivered");
    });
    assert.equal(receiver.at(path).filter((r) => JSON.parse(r.body).data.bountyId === second.bountyId).length, 3);
    assert.deepEqual(completed[0].data, {
      bountyId: second.bountyId,
      agentId: worker.agentId,
      posterAgentId: poster.agentId,
      reward: "11000000",
      txHash: resolved.body.txHash,
    });
  });

  it("validates and manages webhooks: list, delete, limits and every error", async () => {
    const o = await createOrg();
    const h = auth(o);
    const bad = [
      { url: "ftp://example.com/x", events: ["agent.registered"] },
      { url: "https://example.com/x", events: [] },
      { url: "https://example.com/x", events: ["agent.deleted"] },
      { url: "https://example.com/x", events: ["agent.registered", "agent.registered"] },
      { url: "https://example.com/x", events: ["agent.registered"], secret: "short" },
      { events: ["agent.registered"] },
    ];
    for (const body of bad) {
      const res = await api("POST", `/api/organizations/${o.id}/webhooks`, { headers: h, body });
      assert.equal(res.status, 400, JSON.stringify(body));
      assert.equal(code(res), "VALIDATION_ERROR");
    }
    const metadata = await api("POST", `/api/organizations/${o.id}/webhooks`, {
      headers: h,
      body: { url: "http://169.254.169.254/latest", events: ["agent.registered"] },
    });
    assert.equal(metadata.status, 400);
    assert.equal(code(metadata), "INVALID_WEBHOOK_URL");
    const creds = await api("POST", `/api/organizations/${o.id}/webhooks`, {
      headers: h,
      body: { url: "https://user:pw@example.com/x", events: ["agent.registered"] },
    });
    assert.equal(code(creds), "INVALID_WEBHOOK_URL");
    const noSecret = await api("POST", `/api/organizations/${o.id}/webhooks`, {
      headers: { "x-api-key": o.apiKey },
      body: { url: "https://example.com/x", events: ["agent.registered"] },
    });
    assert.equal(code(noSecret), "API_SECRET_REQUIRED");

    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      ids.push(
        (
          await addWebhook(o, {
            url: `https://example.com/h${i}`,
            events: ["bounty.created", "bounty.claimed", "bounty.completed"],
          })
        ).id,
      );
    }
    const sixth = await api("POST", `/api/organizations/${o.id}/webhooks`, {
      headers: h,
      body: { url: "https://example.com/h6", events: ["agent.registered"] },
    });
    assert.equal(sixth.status, 403);
    assert.equal(code(sixth), "PLAN_LIMIT_REACHED");
    const list = await api("GET", `/api/organizations/${o.id}/webhooks`, { headers: admin });
    assert.equal(list.status, 200);
    assert.equal(list.body.webhooks.length, 5);
    assert.ok(list.body.webhooks.every((w: Record<string, unknown>) => !("secret" in w)));
    const stored = await db.query("select secret_enc from api.org_webhook where id = $1", [ids[0]]);
    assert.ok(Buffer.isBuffer(stored.rows[0].secret_enc));

    const del = await api("DELETE", `/api/organizations/${o.id}/webhooks/${ids[0]}`, { headers: h });
    assert.equal(del.status, 200);
    assert.deepEqual(del.body, { deleted: true, id: ids[0] });
    const again = await api("DELETE", `/api/organizations/${o.id}/webhooks/${ids[0]}`, { headers: h });
    assert.equal(again.status, 404);
    assert.equal(code(again), "WEBHOOK_NOT_FOUND");
    const log = await api("GET", `/api/organizations/${o.id}/webhooks/wh_nope/deliveries`, { headers: h });
    assert.equal(code(log), "WEBHOOK_NOT_FOUND");
    // A webhook of another organization is not found through this one.
    const other = await createOrg();
    const foreign = await addWebhook(other, { url: "https://example.com/o", events: ["agent.updated"] });
    const cross = await api("DELETE", `/api/organizations/${o.id}/webhooks/${foreign.id}`, { headers: h });
    assert.equal(code(cross), "WEBHOOK_NOT_FOUND");
    const crossOrg = await api("GET", `/api/organizations/${other.id}/webhooks`, { headers: h });
    assert.equal(code(crossOrg), "ORGANIZATION_FORBIDDEN");
  });
});

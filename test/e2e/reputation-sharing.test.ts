// Reputation sharing between organizations on the real stack: what organization B's key (agent list, organization
// search, leaderboard, paid search) and B's white-label directory show of organization A's agents, as A's shareOutbound, B's acceptInbound and
// both whitelists change. A is isolated ("schema"), so the rule also holds under organization row-level security.
import assert from "node:assert/strict";
import { request as httpRequest } from "node:http";
import { after, before, describe, it } from "node:test";
import { signPayment } from "../support/payments.ts";
import { api, db, newWallet, stack, waitUntil } from "../support/stack.ts";

after(() => db.end());

const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const uniq = () => Math.random().toString(36).slice(2, 10);
const apiPort = Number(new URL(stack.apiUrl).port);

interface Org {
  id: string;
  apiKey: string;
  apiSecret: string;
  dashboard: string;
}

async function createOrg(label: string, extra: Record<string, unknown> = {}): Promise<Org> {
  const res = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name: `${label} ${uniq()}`, subdomain: `${label.toLowerCase()}-${uniq()}`, ...extra },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body as Org;
}

const keys = (o: Org) => ({ "x-api-key": o.apiKey, "x-api-secret": o.apiSecret });

async function register(o: Org, name: string): Promise<number> {
  const res = await api("POST", "/api/agents/register", { headers: keys(o), body: { name, capabilities: ["coding"] } });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  return res.body.agentId;
}

async function share(o: Org, body: Record<string, unknown>) {
  const res = await api("PATCH", `/api/organizations/${o.id}/reputation-sharing`, { headers: keys(o), body });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

function sitePage(o: Org, path: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: "127.0.0.1", port: apiPort, path, headers: { host: new URL(o.dashboard).host }, timeout: 30_000 },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")));
      },
    );
    req.on("timeout", () => req.destroy(new Error("site page timed out")));
    req.on("error", reject);
    req.end();
  });
}

/** Every agent id organization `o` sees, three ways, which must agree. */
async function seenBy(o: Org): Promise<number[]> {
  const list = await api("GET", "/api/agents?limit=100", { headers: { authorization: `Bearer ${o.apiKey}` } });
  assert.equal(list.status, 200, JSON.stringify(list.body));
  const fromList = list.body.agents.map((a: { tokenId: number }) => a.tokenId).sort((x: number, y: number) => x - y);
  assert.equal(list.body.pagination.total, fromList.length);
  const search = await api("GET", `/api/organizations/${o.id}/agents/search?limit=100`, { headers: keys(o) });
  assert.equal(search.status, 200, JSON.stringify(search.body));
  const fromSearch = search.body.agents
    .map((a: { tokenId: number }) => a.tokenId)
    .sort((x: number, y: number) => x - y);
  const site = await sitePage(o, "/agents");
  const fromSite = [...site.matchAll(/data-agent-id="(\d+)"/g)].map((m) => Number(m[1])).sort((x, y) => x - y);
  assert.deepEqual(fromSearch, fromList, "organization search and agent list agree");
  assert.deepEqual(fromSite, fromList, "the white-label directory agrees");
  const key = { "x-api-key": o.apiKey };
  const board = await api("GET", "/api/reputation?limit=100", { headers: key });
  assert.equal(board.status, 200, JSON.stringify(board.body));
  const fromBoard = board.body.leaderboard
    .map((e: { agentId: number }) => e.agentId)
    .sort((x: number, y: number) => x - y);
  assert.deepEqual(fromBoard, fromList, "the leaderboard agrees");
  const paid = await api("POST", "/api/intelligence/search", {
    headers: { ...key, "x-payment": await signPayment(newWallet().account, { recipient, endpoint: SEARCH }) },
    body: { capabilities: ["coding"], limit: 100 },
  });
  assert.equal(paid.status, 200, JSON.stringify(paid.body));
  const fromPaid = paid.body.results.map((r: { id: number }) => r.id).sort((x: number, y: number) => x - y);
  assert.deepEqual(fromPaid, fromList, "paid search agrees");
  return fromList;
}

const SEARCH = "/api/intelligence/search";
let recipient: `0x${string}`;

describe("reputation sharing between two organizations", () => {
  let a: Org;
  let b: Org;
  let c: Org;
  let a1: number;
  let b1: number;
  before(async () => {
    a = await createOrg("Alpha", { plan: "growth", isolation: "schema" });
    b = await createOrg("Beta");
    c = await createOrg("Gamma");
    a1 = await register(a, "Alpha One");
    b1 = await register(b, "Beta One");
    recipient = (await api("GET", "/api/config")).body.platformRecipient;
    // Paid search reads the search index, which the profile job fills shortly after registration.
    await waitUntil("agents searchable", async () => {
      const r = await db.query("select count(*)::int n from api.agent_search where agent_id = any($1)", [[a1, b1]]);
      return r.rows[0].n === 2 || undefined;
    });
  });

  it("by default each organization sees its own agents only", async () => {
    assert.deepEqual(await share(b, { acceptInbound: false }), {
      organization: b.id,
      shareOutbound: false,
      acceptInbound: false,
      whitelistOrgs: [],
    });
    assert.deepEqual(await seenBy(a), [a1]);
    assert.deepEqual(await seenBy(b), [b1]);
  });

  it("A sharing outbound is not enough: B must accept inbound; then B sees A's agents with their reputation", async () => {
    await share(a, { shareOutbound: true });
    assert.deepEqual(await seenBy(b), [b1]);
    await share(b, { acceptInbound: true });
    assert.deepEqual(await seenBy(b), [a1, b1]);
    // B shares nothing outbound and A accepts nothing: A still sees only its own.
    assert.deepEqual(await seenBy(a), [a1]);

    const search = await api("GET", `/api/organizations/${b.id}/agents/search`, { headers: keys(b) });
    const shared = search.body.agents.find((x: { tokenId: number }) => x.tokenId === a1);
    assert.equal(shared.organization, a.id);
    assert.equal(shared.name, "Alpha One");
    const rep = await api("GET", `/api/reputation/${a1}`);
    assert.equal(rep.status, 200, JSON.stringify(rep.body));
    assert.equal(shared.reputation, rep.body.score, "the shared agent's reputation, as the reputation API has it");
    const own = search.body.agents.find((x: { tokenId: number }) => x.tokenId === b1);
    assert.equal(own.organization, b.id);
    const site = await sitePage(b, "/agents");
    assert.ok(site.includes(`data-agent-id="${a1}" data-organization="${a.id}"`));
    assert.ok(site.includes("Alpha One"));
    const sharedPage = await sitePage(b, `/agents/${a1}`);
    assert.ok(sharedPage.includes(`Shared by organization <code>${a.id}</code>`));
    assert.ok(sharedPage.includes(`<b id="agent-score">${rep.body.score}</b>`));
  });

  it("whitelists narrow sharing on both sides", async () => {
    await share(a, { whitelistOrgs: [c.id] }); // A shares with C only
    assert.deepEqual(await seenBy(b), [b1]);
    await share(a, { whitelistOrgs: [b.id, c.id] });
    assert.deepEqual(await seenBy(b), [a1, b1]);
    await share(b, { whitelistOrgs: [c.id] }); // B accepts from C only
    assert.deepEqual(await seenBy(b), [b1]);
    await share(b, { whitelistOrgs: [a.id] });
    assert.deepEqual(await seenBy(b), [a1, b1]);
    // C accepts nothing, so whitelisting it on A's side shows it nothing.
    assert.deepEqual(await seenBy(c), []);
  });

  it("turning sharing off hides A's agents from B again", async () => {
    await share(a, { shareOutbound: false });
    assert.deepEqual(await seenBy(b), [b1]);
    assert.ok((await sitePage(b, `/agents/${a1}`)).includes("No such agent"));
    await share(a, { shareOutbound: true });
    assert.deepEqual(await seenBy(b), [a1, b1]);
    await share(b, { acceptInbound: false });
    assert.deepEqual(await seenBy(b), [b1]);
  });
});

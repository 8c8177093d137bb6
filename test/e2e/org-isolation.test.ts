// Organization isolation against the real stack: "schema" organizations are protected by Postgres row-level
// security under the request's organization scope (an unfiltered query under org A reaches none of org B's rows),
// "none" organizations share filtered storage, "full" is refused; with an organization key every list and aggregate
// (agents, runs, paid search, leaderboard, stats, market) is the organization's own.

import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { claimAgent, faucet, signedAction } from "../support/agents.ts";
import { signPayment } from "../support/payments.ts";
import { chainTime } from "../support/runs.ts";
import { api, db, newWallet, stack, waitUntil } from "../support/stack.ts";
import { createSubscription } from "../support/subscriptions.ts";

const admin = { authorization: `Bearer ${stack.secrets.adminToken}` };
const uniq = () => Math.random().toString(36).slice(2, 10);
const code = (res: { body: { error?: { code: string } } }) => res.body.error?.code;

interface Org {
  id: string;
  apiKey: string;
  apiSecret: string;
  tag: string;
  agents: number[];
}

async function createOrg(isolation: "none" | "schema"): Promise<Org> {
  const res = await api("POST", "/api/organizations", {
    headers: admin,
    body: { name: `Iso ${uniq()}`, subdomain: `iso-${uniq()}`, adminEmail: `a-${uniq()}@example.com`, isolation },
  });
  assert.equal(res.status, 201, JSON.stringify(res.body));
  assert.equal(res.body.isolation, isolation);
  return { id: res.body.id, apiKey: res.body.apiKey, apiSecret: res.body.apiSecret, tag: `tag${uniq()}`, agents: [] };
}

/** An organization with an agent (tagged uniquely), a member, a webhook, an event and usage rows. */
async function populate(o: Org) {
  const reg = await api("POST", "/api/agents/register", {
    headers: { "x-api-key": o.apiKey },
    body: { name: `Iso agent ${uniq()}`, capabilities: [o.tag, "isolation"], domains: [o.tag] },
  });
  assert.equal(reg.status, 201, JSON.stringify(reg.body));
  o.agents.push(reg.body.agentId);
  const member = await api("POST", `/api/organizations/${o.id}/members`, {
    headers: admin,
    body: { email: `dev-${uniq()}@example.com`, role: "developer" },
  });
  assert.equal(member.status, 201, JSON.stringify(member.body));
  const hook = await api("POST", `/api/organizations/${o.id}/webhooks`, {
    headers: admin,
    body: { url: "https://hooks.example.com/agenthub", events: ["agent.updated"] },
  });
  assert.equal(hook.status, 201, JSON.stringify(hook.body));
  const ev = `evt_iso_${uniq()}`;
  await db.query(
    "insert into api.org_event (id, org_id, event, agent_id, body) values ($1, $2, 'agent.updated', $3, '{}')",
    [ev, o.id, reg.body.agentId],
  );
  await db.query("insert into api.webhook_delivery (event_id, webhook_id) values ($1, $2)", [ev, hook.body.id]);
  return reg.body as { agentId: number; claimCode: string; walletAddress: string };
}

const probe = (headers: Record<string, string> = {}) => api("GET", "/api/dev/org-scope", { headers });

describe("organization isolation", () => {
  let a: Org;
  let b: Org;
  let c: Org;
  let aAgent: { agentId: number; claimCode: string; walletAddress: string };
  let bAgent: { agentId: number; claimCode: string; walletAddress: string };

  before(async () => {
    a = await createOrg("schema");
    b = await createOrg("schema");
    c = await createOrg("none");
    aAgent = await populate(a);
    bAgent = await populate(b);
    await populate(c);
  });

  it("refuses full isolation (no dedicated database instance exists) on every plan", async () => {
    for (const plan of [undefined, "enterprise"]) {
      const res = await api("POST", "/api/organizations", {
        headers: admin,
        body: { name: "Full", subdomain: `full-${uniq()}`, isolation: "full", ...(plan ? { plan } : {}) },
      });
      assert.equal(res.status, 422, JSON.stringify(res.body));
      assert.equal(code(res), "ISOLATION_UNAVAILABLE");
    }
    const got = await api("GET", `/api/organizations/${a.id}`, { headers: { "x-api-key": a.apiKey } });
    assert.equal(got.body.isolation, "schema");
    assert.equal(got.body.plan, "growth");
  });

  it("an unfiltered query under org A's scope reaches none of org B's rows, in every organization-owned table", async () => {
    const res = await probe({ "x-api-key": a.apiKey });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.role, "agenthub_tenant");
    assert.equal(res.body.orgSetting, a.id);
    // Without an organization key the request is not scoped: the platform sees every organization's rows.
    const unscoped = await probe();
    assert.notEqual(unscoped.body.role, "agenthub_tenant");
    assert.equal(unscoped.body.orgSetting, null);
    const isolation = new Map(
      (await db.query<{ id: string; isolation: string }>("select id, isolation from api.organization")).rows.map(
        (r) => [r.id, r.isolation],
      ),
    );
    const tables = Object.entries(res.body.tables as Record<string, (string | null)[]>);
    assert.ok(tables.length >= 9);
    for (const [table, orgs] of tables) {
      const all: (string | null)[] = unscoped.body.tables[table];
      assert.ok(!orgs.includes(b.id), `${table}: org B's rows leaked into org A's scope`);
      assert.ok(all.includes(b.id) || table === "run_org", `${table}: org B has rows (the test would prove nothing)`);
      for (const org of orgs) {
        assert.ok(org === null || org === a.id || isolation.get(org) === "none", `${table}: ${org} under A's scope`);
      }
      if (all.includes(a.id)) assert.ok(orgs.includes(a.id), `${table}: org A's own rows are visible`);
      // "none" is shared storage, filtered by the API's queries: the database does not hide it.
      if (all.includes(c.id)) assert.ok(orgs.includes(c.id), `${table}: the "none" organization's rows are shared`);
    }
    for (const table of ["organization", "org_credential", "org_member", "org_usage", "agent_wallet"]) {
      assert.ok(res.body.tables[table].includes(a.id), table);
    }
    const asB = await probe({ "x-api-key": b.apiKey });
    for (const [table, orgs] of Object.entries(asB.body.tables as Record<string, (string | null)[]>)) {
      assert.ok(!orgs.includes(a.id), `${table}: org A's rows leaked into org B's scope`);
    }
  });

  it("the database itself refuses org A's scope writes to org B's rows (row-level security, not a WHERE clause)", async () => {
    const client = await db.connect();
    try {
      await client.query("begin");
      await client.query("set local role agenthub_tenant");
      await client.query("select set_config('app.org_id', $1, true)", [a.id]);
      const seen = await client.query<{ org_id: string }>("select distinct org_id from api.org_member");
      assert.ok(!seen.rows.some((r) => r.org_id === b.id));
      const updated = await client.query("update api.org_member set role = 'viewer'");
      const stolen = await client.query<{ n: number }>(
        "select count(*)::int n from api.org_credential where org_id = $1",
        [b.id],
      );
      assert.equal(stolen.rows[0]!.n, 0);
      await client.query("savepoint s");
      await assert.rejects(
        client.query(
          "insert into api.org_member (id, org_id, email, role) values ('mem_x', $1, 'x@example.com', 'admin')",
          [b.id],
        ),
        /row-level security/,
      );
      await client.query("rollback to savepoint s");
      // The blanket update touched A's (and the shared "none" organization's) members only.
      const bMembers = await client.query("select 1 from api.org_member where org_id = $1", [b.id]);
      assert.equal(bMembers.rowCount, 0);
      assert.ok((updated.rowCount ?? 0) > 0);
      // Without an organization setting the tenant role reaches no isolated organization at all.
      await client.query("select set_config('app.org_id', '', true)");
      const none = await client.query<{ n: number }>(
        "select count(*)::int n from api.org_member where org_id = any($1)",
        [[a.id, b.id]],
      );
      assert.equal(none.rows[0]!.n, 0);
    } finally {
      await client.query("rollback");
      client.release();
    }
    // Every organization-owned table (an org_id column, whichever migration made it) is under the policy.
    const uncovered = await db.query<{ relname: string }>(
      `select c.relname from pg_class c join pg_namespace n on n.oid = c.relnamespace
         join pg_attribute a on a.attrelid = c.oid and a.attname = 'org_id' and not a.attisdropped
        where n.nspname = 'api' and c.relkind = 'r'
          and not (c.relrowsecurity and exists (select 1 from pg_policy p where p.polrelid = c.oid))`,
    );
    assert.deepEqual(uncovered.rows, []);
    const intact = await db.query<{ role: string }>("select role from api.org_member where org_id = $1", [b.id]);
    assert.ok(intact.rows.some((r) => r.role === "admin"));
  });

  it("scopes runs, paid search, leaderboard, stats and market to the organization's agents with its key", async () => {
    const key = { "x-api-key": a.apiKey };
    // A draft run posted by the owner of A's agent belongs to A; one by an outsider does not.
    const claim = await claimAgent(aAgent.agentId, aAgent.claimCode);
    const deadline = new Date(Number((await chainTime()) + 7200n) * 1000).toISOString();
    const draft = (poster: { address: string; key: `0x${string}` }) =>
      signedAction(poster.key, "create-run", "run", "new").then((signed) =>
        api("POST", "/api/runs", {
          body: {
            posterAddress: poster.address,
            title: "iso",
            description: "d",
            reward: "1000000",
            deadline,
            ...signed,
          },
        }),
      );
    const mine = await draft(claim.owner);
    assert.equal(mine.status, 201, JSON.stringify(mine.body));
    const outsider = await draft(newWallet());
    assert.equal(outsider.status, 201, JSON.stringify(outsider.body));
    // The public answers of the same URLs come first: cached for the public, never served to a key (nor back).
    const publicFirst = await Promise.all(
      ["/api/runs?limit=100", "/api/reputation?limit=100", "/api/agents?limit=100"].map((path) => api("GET", path)),
    );
    for (const res of publicFirst) assert.equal(res.status, 200, JSON.stringify(res.body));
    const agents = await api("GET", "/api/agents?limit=100", { headers: key });
    assert.deepEqual(
      agents.body.agents.map((x: { tokenId: number }) => x.tokenId),
      a.agents,
    );
    assert.equal(agents.body.pagination.total, 1);
    assert.ok((await api("GET", "/api/agents?limit=100")).body.pagination.total >= 3);
    const runs = await api("GET", "/api/runs?limit=100", { headers: key });
    assert.equal(runs.status, 200);
    const ids = runs.body.runs.map((r: { bountyId: number }) => r.bountyId);
    assert.deepEqual(ids, [mine.body.run.bountyId]);
    assert.equal(runs.body.pagination.total, 1);
    const publicRuns = await api("GET", "/api/runs?limit=100");
    assert.ok(publicRuns.body.pagination.total >= 2);

    // Paid search with A's key: only A's agent, even when the query matches B's and C's agents too.
    const payer = newWallet();
    const recipient = (await api("GET", "/api/config")).body.platformRecipient;
    await waitUntil("agents searchable", async () => {
      const r = await db.query("select count(*)::int n from api.agent_search where agent_id = any($1)", [
        [...a.agents, ...b.agents, ...c.agents],
      ]);
      return r.rows[0].n === 3 || undefined;
    });
    const search = await api("POST", "/api/intelligence/search", {
      headers: {
        ...key,
        "x-payment": await signPayment(payer.account, { recipient, endpoint: "/api/intelligence/search" }),
      },
      body: { capabilities: ["isolation"], limit: 100 },
    });
    assert.equal(search.status, 200, JSON.stringify(search.body));
    assert.deepEqual(
      search.body.results.map((r: { id: number }) => r.id),
      a.agents,
    );
    assert.equal(search.body.total, 1);
    const publicSearch = await api("POST", "/api/intelligence/search", {
      headers: {
        "x-payment": await signPayment(newWallet().account, { recipient, endpoint: "/api/intelligence/search" }),
      },
      body: { capabilities: ["isolation"], limit: 100 },
    });
    assert.ok(publicSearch.body.results.length >= 3, JSON.stringify(publicSearch.body));

    const board = await api("GET", "/api/reputation?limit=100", { headers: key });
    assert.equal(board.status, 200, JSON.stringify(board.body));
    assert.deepEqual(
      board.body.leaderboard.map((e: { agentId: number }) => e.agentId),
      a.agents,
    );

    const stats = await api("GET", "/api/stats", { headers: key });
    assert.equal(stats.status, 200);
    assert.equal(stats.body.totalAgents, 1);
    assert.equal(stats.body.totalBounties, 0); // the draft is not funded: bounties count on-chain runs
    const publicStats = await api("GET", "/api/stats");
    assert.ok(publicStats.body.totalAgents >= 3);

    const market = await api("GET", "/api/intelligence/market", { headers: key });
    assert.equal(market.status, 200);
    assert.equal(market.body.stats.totalAgents, 1);
    const caps = market.body.trending.capabilities.map((t: { name: string }) => t.name);
    assert.ok(caps.includes(a.tag), JSON.stringify(caps));
    assert.ok(!caps.includes(b.tag) && !caps.includes(c.tag), JSON.stringify(caps));
    const domains = market.body.trending.domains.map((t: { name: string }) => t.name);
    assert.deepEqual(domains, [a.tag]);
  });

  it("scopes GET /api/subscriptions to the subscriptions its agents' owners and wallets post", async () => {
    const claim = await claimAgent(bAgent.agentId, bAgent.claimCode);
    const outsider = newWallet();
    const subscribe = async (poster: { address: `0x${string}`; key: `0x${string}` }) => {
      await faucet(poster.address, 10_000_000n, 10n ** 17n);
      const res = await createSubscription(poster.key, "daily for 3 days: summarise the news", 3_150_000n, 1_000_000n);
      assert.equal(res.status, 201, JSON.stringify(res.body));
      return res.body.subscription.id as number;
    };
    const mine = await subscribe(claim.owner);
    const theirs = await subscribe(outsider);
    const ids = async (headers: Record<string, string> = {}) => {
      const res = await api("GET", "/api/subscriptions?limit=100", { headers });
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return { ids: res.body.subscriptions.map((s: { id: number }) => s.id) as number[], total: res.body.total };
    };
    const ofB = await ids({ "x-api-key": b.apiKey });
    assert.deepEqual(ofB, { ids: [mine], total: 1 });
    const ofA = await ids({ "x-api-key": a.apiKey });
    assert.ok(!ofA.ids.includes(mine) && !ofA.ids.includes(theirs), JSON.stringify(ofA));
    const everyone = await ids();
    assert.ok(everyone.ids.includes(mine) && everyone.ids.includes(theirs), JSON.stringify(everyone));
  });
});

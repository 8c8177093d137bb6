// Shared state lives in Postgres, so limits and exactly-once rules hold across API processes.
import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { rateKeyOf } from "../../api/src/lib/client-ip.ts";
import { registerAgent } from "../support/agents.ts";
import { signPayment } from "../support/payments.ts";
import { startExtraApi } from "../support/processes.ts";
import { db, freshIp, newWallet, stack, waitUntil } from "../support/stack.ts";

let second: Awaited<ReturnType<typeof startExtraApi>>;
before(async () => {
  second = await startExtraApi();
});
after(async () => {
  await second?.stop();
  await db.end();
});

const post = (base: string, path: string, body: unknown, ip: string) =>
  fetch(`${base}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-forwarded-for": ip },
    body: JSON.stringify(body),
  });

describe("two API processes, one database", () => {
  it("share the registration limit of 3 per IP", async () => {
    const ip = freshIp();
    const statuses: number[] = [];
    for (const [i, base] of [stack.apiUrl, second.url, stack.apiUrl, second.url].entries()) {
      statuses.push((await post(base, "/api/agents/register", { name: `shared-limit-${i}` }, ip)).status);
    }
    assert.deepEqual(statuses, [201, 201, 201, 429]);
  });

  it("share the public limit of 100 a minute (counted by leases): never more than 100 admitted", async () => {
    const ip = freshIp();
    // Each answer names the window that counted it (X-RateLimit-Reset: its end). Reads go on, 10 at a time over
    // both processes, until one window has seen 140 of them; a burst that starts late in a minute simply carries
    // on into the next window, so no test waits for a minute to begin.
    const byWindow = new Map<number, number[]>();
    let full: { reset: number; statuses: number[] } | undefined;
    for (let round = 0; !full; round++) {
      assert.ok(round < 40, "140 reads within one window");
      const batch = await Promise.all(
        Array.from({ length: 10 }, async (_, i) => {
          const res = await fetch(`${i % 2 ? second.url : stack.apiUrl}/api/agents?limit=1`, {
            headers: { "x-forwarded-for": ip },
          });
          await res.body?.cancel();
          return { status: res.status, reset: Number(res.headers.get("x-ratelimit-reset")) };
        }),
      );
      for (const { status, reset } of batch) {
        assert.ok(reset > 0, "every answer names its window");
        const statuses = byWindow.get(reset) ?? [];
        statuses.push(status);
        byWindow.set(reset, statuses);
        if (statuses.length >= 140) full = { reset, statuses };
      }
    }
    const admitted = full.statuses.filter((s) => s === 200).length;
    assert.equal(admitted + full.statuses.filter((s) => s === 429).length, full.statuses.length);
    assert.ok(admitted <= 100, `${admitted} admitted`);
    // Unused slices are lost when the window fills, at most an eighth of what was left per process.
    assert.ok(admitted >= 90, `${admitted} admitted`);
    const { rows } = await db.query(
      "select granted, max from api.rate_limit_lease where key = $1 and window_start = to_timestamp($2)",
      [`public:${rateKeyOf(ip)}:60`, full.reset - 60],
    );
    assert.equal(rows[0].max, 100);
    assert.ok(rows[0].granted >= admitted, "every admitted request was granted by Postgres first");
  });

  it("release a claimed key to one claimant across processes", async () => {
    const reg = await registerAgent();
    const bodies = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const user = newWallet();
        const signature = await user.account.signMessage({
          message: `I claim agent ${reg.agentId} to address ${user.address}`,
        });
        return { signature, userAddress: user.address, claimCode: reg.claimCode };
      }),
    );
    const responses = await Promise.all(
      bodies.map((body, i) =>
        post(i % 2 ? second.url : stack.apiUrl, `/api/agents/${reg.agentId}/claim`, body, freshIp()),
      ),
    );
    const statuses = responses.map((r) => r.status).sort();
    assert.equal(statuses.filter((s) => s === 200).length, 1);
    assert.equal(statuses.filter((s) => s === 400).length, 9);
    const answers = await Promise.all(responses.map((r) => r.json() as Promise<any>));
    // The winner's retry on the other process is a redelivery of the same key, not a second transfer.
    const w = responses.findIndex((r) => r.status === 200);
    const retry = await post(
      w % 2 ? stack.apiUrl : second.url,
      `/api/agents/${reg.agentId}/claim`,
      bodies[w],
      freshIp(),
    );
    assert.equal(retry.status, 200);
    const again = (await retry.json()) as any;
    assert.equal(again.privateKey, answers[w].privateKey);
    assert.equal(again.txHash, answers[w].txHash);
  });

  it("share an organization's quotas: API calls per month and payments per day, counted once across both", async () => {
    const admin = { authorization: `Bearer ${stack.secrets.adminToken}`, "content-type": "application/json" };
    const tag = Math.random().toString(36).slice(2, 10);
    const created = await fetch(`${stack.apiUrl}/api/organizations`, {
      method: "POST",
      headers: admin,
      body: JSON.stringify({ name: `Two procs ${tag}`, subdomain: `two-procs-${tag}` }),
    });
    assert.equal(created.status, 201);
    const org = (await created.json()) as { id: string; apiKey: string };
    // Set through the second process, enforced by both (the quota is read per request).
    const set = await fetch(`${second.url}/api/organizations/${org.id}`, {
      method: "PATCH",
      headers: admin,
      body: JSON.stringify({ quotas: { apiCallsPerMonth: 6, paymentsPerDay: 2 } }),
    });
    assert.equal(set.status, 200);
    const key = { "x-api-key": org.apiKey };
    const codeOf = async (res: Response) => ((await res.json()) as { error?: { code: string } }).error?.code;

    // 10 parallel calls over both processes against 6 a month: exactly 6 pass, the rest 429 wherever they land.
    const calls = await Promise.all(
      Array.from({ length: 10 }, (_, i) => fetch(`${i % 2 ? second.url : stack.apiUrl}/api/stats`, { headers: key })),
    );
    const statuses = calls.map((r) => r.status);
    assert.equal(statuses.filter((s) => s === 200).length, 6, JSON.stringify(statuses));
    for (const res of calls.filter((r) => r.status !== 200)) {
      assert.equal(res.status, 429);
      assert.equal(await codeOf(res), "API_QUOTA_EXCEEDED");
    }
    for (const base of [stack.apiUrl, second.url]) {
      const over = await fetch(`${base}/api/agents`, { headers: key });
      assert.equal(over.status, 429, base);
      assert.equal(over.headers.get("x-ratelimit-remaining"), "0");
    }

    // Payments per day: one on each process, then the third is refused by either.
    const recipient = (await (await fetch(`${stack.apiUrl}/api/config`)).json()).platformRecipient;
    const pay = async (base: string) =>
      fetch(`${base}/api/intelligence/search`, {
        method: "POST",
        headers: {
          ...key,
          "content-type": "application/json",
          "x-payment": await signPayment(newWallet().account, { recipient, endpoint: "/api/intelligence/search" }),
        },
        body: JSON.stringify({ limit: 1 }),
      });
    const first = await pay(stack.apiUrl);
    assert.equal(first.status, 200);
    assert.equal(first.headers.get("x-ratelimit-remaining"), "1");
    const secondPaid = await pay(second.url);
    assert.equal(secondPaid.status, 200);
    assert.equal(secondPaid.headers.get("x-ratelimit-remaining"), "0");
    for (const base of [stack.apiUrl, second.url]) {
      const third = await pay(base);
      assert.equal(third.status, 429, base);
      assert.equal(await codeOf(third), "PAYMENT_QUOTA_EXCEEDED");
    }
    const { rows } = await db.query(
      "select kind, sum(used)::int n from api.org_quota where org_id = $1 group by kind order by kind",
      [org.id],
    );
    assert.deepEqual(
      rows.map((r) => [r.kind, r.n]),
      [
        ["calls", 6],
        ["payments", 2],
      ],
    );
  });

  it("empty each other's search caches: a change made anywhere shows in the next search of every process", async () => {
    const word = `zm${Math.random().toString(36).slice(2, 8)}`;
    const agent = await registerAgent({ name: `Cachecat-${word}`, description: `caches ${word}` });
    const recipient = (await (await fetch(`${stack.apiUrl}/api/config`)).json()).platformRecipient;
    const payer = newWallet();
    const searchNames = async (base: string) => {
      const res = await fetch(`${base}/api/intelligence/search`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "x-payment": await signPayment(payer.account, { recipient, endpoint: "/api/intelligence/search" }),
        },
        body: JSON.stringify({ query: word }),
      });
      assert.equal(res.status, 200);
      return ((await res.json()) as { results: { name: string }[] }).results.map((r) => r.name);
    };
    // Both processes answer and cache the same search (a process's first search also opens its change feed;
    // nothing is cached until the feed is up).
    for (const base of [stack.apiUrl, second.url]) assert.deepEqual(await searchNames(base), [`Cachecat-${word}`]);
    // Caching starts once a process's feed connection is listening: wait until both are (one session each).
    await waitUntil("both processes listen for search changes", async () => {
      const { rows } = await db.query(
        // The search cache's feed connection LISTENs on agenthub_search (use-cases/search/agent-search.ts).
        "select count(*)::int n from pg_stat_activity where query like 'listen %agenthub_search%' and state = 'idle'",
      );
      return rows[0].n >= 2;
    });
    for (const base of [stack.apiUrl, second.url]) assert.deepEqual(await searchNames(base), [`Cachecat-${word}`]);
    // A write by neither API process (the cache would otherwise serve the old name for 5 s).
    await db.query("update api.agent_profile set name = $2 where agent_id = $1", [agent.agentId, `Renamed-${word}`]);
    for (const base of [stack.apiUrl, second.url]) {
      await waitUntil(`${base} sees the rename`, async () => (await searchNames(base))[0] === `Renamed-${word}`, 2_000);
    }
  });
});

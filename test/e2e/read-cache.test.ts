// The read cache of the agent, reputation and list pages (api/src/stores/read-cache.ts): an answer is served from
// memory only until something behind it changes. Chain facts change when the indexer commits a block (Ponder's
// notification), API rows by NOTIFY from their triggers (migration 195), whichever process or tool wrote them; the
// cache's time bound (READ_CACHE_TTL_MS, 2 s) is far longer than the waits below, so passing proves the notifications.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { depositDirect, faucet, registerAgent, stakedAgent } from "../support/agents.ts";
import { createDraft, newPoster } from "../support/runs.ts";
import { api, db, waitUntil } from "../support/stack.ts";

after(() => db.end());

/** Waits at most `ms` (well under the cache's 2 s bound) for `probe`, probing every 10 ms. */
const within = <T>(what: string, ms: number, probe: () => Promise<T | false>): Promise<T> =>
  waitUntil(what, probe, ms, 10);

describe("read cache", () => {
  it("an agent page shows a stake deposited straight on chain as soon as the indexer has it", async () => {
    const agent = await stakedAgent();
    const first = await api("GET", `/api/agents/${agent.agentId}`);
    const again = await api("GET", `/api/agents/${agent.agentId}`);
    assert.deepEqual(again.body, first.body, "unchanged data: the same answer");
    const before = BigInt(first.body.stakedAmount);

    const unit = 1_000_000n;
    await faucet(agent.walletAddress, unit, 10n ** 16n);
    await depositDirect(agent.agentKey, agent.agentId, unit);
    // Most likely answered (and cached) before the indexer has the block: what must not outlive it.
    await api("GET", `/api/agents/${agent.agentId}`);
    // The indexer's own table first: from then on the API must not answer from before the block.
    await within("stake indexed", 20_000, async () => {
      const { rows } = await db.query("select amount::text from chain.stake where agent_id = $1", [agent.agentId]);
      return BigInt(rows[0]?.amount ?? 0) === before + unit;
    });
    await within("agent page shows the deposit", 300, async () => {
      const res = await api("GET", `/api/agents/${agent.agentId}`);
      return BigInt(res.body.stakedAmount) === before + unit;
    });
  });

  it("agent page, list and reputation follow rows another process changed (NOTIFY)", async () => {
    const reg = await registerAgent({ name: "Cache Before", capabilities: ["coding"] });
    const page = async () => (await api("GET", `/api/agents/${reg.agentId}`)).body;
    assert.equal((await page()).name, "Cache Before");
    const rep = await api("GET", `/api/reputation/${reg.agentId}`);
    assert.equal(rep.status, 200);

    // Written the way another API process (or an operator) would: straight to Postgres, not through this API.
    await db.query("update api.agent_profile set name = 'Cache After', tools = '{cached-tool}' where agent_id = $1", [
      reg.agentId,
    ]);
    await within("agent page shows the new name", 300, async () => (await page()).name === "Cache After");

    // Token ids run from 1 without gaps: agent k is on page ceil(k / 50) of 50.
    const listPage = `/api/agents?page=${Math.ceil(reg.agentId / 50)}&limit=50`;
    const listed = async () =>
      (await api("GET", listPage)).body.agents.find((a: { tokenId: number }) => a.tokenId === reg.agentId);
    assert.ok(await listed(), "the agent is on its page");
    await within("list shows the new tools", 300, async () => (await listed()).tools.includes("cached-tool"));

    await db.query("update api.reputation set uptime_percentage = 42.5 where agent_id = $1", [reg.agentId]);
    await within(
      "reputation shows the new uptime",
      300,
      async () => (await api("GET", `/api/reputation/${reg.agentId}`)).body.uptimePercentage === 42.5,
    );
  });

  it("run page and run list follow a run row changed elsewhere (NOTIFY)", async () => {
    const poster = await newPoster(0n);
    const draft = await createDraft(poster.key, poster.address, { title: "Cached run" });
    assert.equal(draft.status, 201, JSON.stringify(draft.body));
    const id = draft.body.run.bountyId;
    assert.equal((await api("GET", `/api/runs/${id}`)).body.title, "Cached run");
    const listed = async () =>
      (await api("GET", "/api/runs?state=DRAFT&limit=100")).body.runs.find(
        (r: { bountyId: number }) => r.bountyId === id,
      );
    assert.equal((await listed()).title, "Cached run");
    await db.query("update api.run set title = 'Renamed run' where id = $1", [id]);
    await within(
      "run page shows the new title",
      300,
      async () => (await api("GET", `/api/runs/${id}`)).body.title === "Renamed run",
    );
    await within("run list shows the new title", 300, async () => (await listed()).title === "Renamed run");
  });

  it("the list's total counts a new agent at once", async () => {
    const before = (await api("GET", "/api/agents?page=1&limit=1")).body.pagination.total;
    await registerAgent();
    const after = (await api("GET", "/api/agents?page=1&limit=1")).body.pagination.total;
    assert.ok(after >= before + 1, `total ${before} -> ${after}`);
  });
});

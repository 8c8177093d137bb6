// Registration and claim under load and failure: no deadlock with more requests than pooled connections, no lost
// claim code and no lost key when an answer never arrives (client gave up, indexer stopped), retries are safe.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { privateKeyToAccount } from "viem/accounts";
import { rateKeyOf } from "../../api/src/lib/client-ip.ts";
import { freezeProcessOnPort, startExtraApi } from "../support/processes.ts";
import { api, db, freshIp, newWallet, rpc, stack, waitUntil } from "../support/stack.ts";

const POOL_SIZE = 20; // api/src/db/pool.ts: each API process's pool

async function register(body: Record<string, unknown>, opts: { ip?: string; key?: string; baseUrl?: string } = {}) {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "x-forwarded-for": opts.ip ?? freshIp(),
  };
  if (opts.key) headers["idempotency-key"] = opts.key;
  const res = await fetch(`${opts.baseUrl ?? stack.apiUrl}/api/agents/register`, {
    method: "POST",
    headers,
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

async function claimBody(agentId: number, claimCode: string, claimant = newWallet()) {
  const signature = await claimant.account.signMessage({
    message: `I claim agent ${agentId} to address ${claimant.address}`,
  });
  return { claimant, body: { signature, userAddress: claimant.address, claimCode } };
}

describe("registration: more concurrent requests than pooled connections", () => {
  it(`200 parallel registrations (pool of ${POOL_SIZE}) all end, /health keeps answering`, async () => {
    const started = Date.now();
    let healthWorst = 0;
    let healthChecks = 0;
    // /health is probed while the burst runs, paced by the burst itself: one probe after every 10 finished
    // registrations (never two at once), so the checks spread over the whole burst without a timer.
    const probes: Promise<void>[] = [];
    let probing = false;
    const probeHealth = () => {
      if (probing) return;
      probing = true;
      const t = Date.now();
      probes.push(
        fetch(`${stack.apiUrl}/health`, { signal: AbortSignal.timeout(5_000) })
          .then((res) => {
            assert.equal(res.status, 200);
            healthWorst = Math.max(healthWorst, Date.now() - t);
            healthChecks++;
          })
          .finally(() => {
            probing = false;
          }),
      );
    };
    let finished = 0;
    probeHealth();
    const results = await Promise.all(
      Array.from({ length: 200 }, (_, i) =>
        fetch(`${stack.apiUrl}/api/agents/register`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
          body: JSON.stringify({ name: `burst-${i}` }),
          signal: AbortSignal.timeout(120_000),
        }).then(async (r) => {
          if (++finished % 10 === 0) probeHealth();
          return { status: r.status, body: (await r.json()) as any };
        }),
      ),
    );
    await Promise.all(probes);
    const seconds = (Date.now() - started) / 1000;
    const created = results.filter((r) => r.status === 201);
    for (const r of results.filter((x) => x.status !== 201)) {
      assert.ok([429, 503].includes(r.status), `unexpected ${r.status} ${JSON.stringify(r.body)}`);
      assert.ok(r.body.error?.code);
    }
    assert.equal(created.length, 200, "every registration succeeds when nothing is overloaded");
    assert.equal(new Set(created.map((r) => r.body.agentId)).size, 200, "200 distinct agents");
    console.log(
      `200 registrations in ${seconds.toFixed(1)} s (${(200 / seconds).toFixed(1)}/s); /health worst ${healthWorst} ms over ${healthChecks} checks`,
    );
    assert.ok(healthChecks > 0 && healthWorst < 3_000, `/health answered within 3 s (worst ${healthWorst} ms)`);
    // Each agent is complete: wallet row bound, profile written, token on chain and indexed.
    const ids = created.map((r) => r.body.agentId);
    const bound = await db.query(
      "select count(*)::int n from api.agent_wallet w join api.agent_profile p using (agent_id) where w.agent_id = any($1)",
      [ids],
    );
    assert.equal(bound.rows[0].n, 200);
    await waitUntil("all 200 indexed", async () => {
      const r = await db.query("select count(*)::int n from chain.agent where id = any($1)", [ids]);
      return r.rows[0].n === 200;
    });
  });
});

describe("registration: Idempotency-Key", () => {
  it("replays the first answer (same agent, same claim code), not counted against the limit", async () => {
    const ip = freshIp();
    const key = randomUUID();
    const first = await register({ name: "Idem" }, { ip, key });
    assert.equal(first.status, 201, JSON.stringify(first.body));
    assert.equal(first.headers.get("x-ratelimit-remaining"), "2");
    const again = await register({ name: "Idem" }, { ip, key });
    assert.equal(again.status, 201);
    assert.deepEqual(again.body, first.body, "the very same answer");
    // The replay used no registration slot: two more fresh registrations fit in the 3 per day.
    for (let i = 0; i < 2; i++) assert.equal((await register({ name: `fresh-${i}` }, { ip })).status, 201);
    assert.equal((await register({ name: "fourth" }, { ip })).status, 429);
    const rows = await db.query("select count(*)::int n from api.agent_wallet where registered_ip = $1", [
      rateKeyOf(ip),
    ]);
    assert.equal(rows.rows[0].n, 3);
  });

  it("refuses the same key with another body (422) and a malformed key (400)", async () => {
    const ip = freshIp();
    const key = randomUUID();
    assert.equal((await register({ name: "One" }, { ip, key })).status, 201);
    const other = await register({ name: "Two" }, { ip, key });
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, "IDEMPOTENCY_KEY_REUSED");
    for (const malformed of ["short", "spaces are not allowed", "k".repeat(256)]) {
      const bad = await register({ name: "Bad" }, { ip, key: malformed });
      assert.equal(bad.status, 400, malformed);
      assert.equal(bad.body.error.code, "INVALID_IDEMPOTENCY_KEY");
    }
    // Keys are per caller: another client's identical key is its own registration.
    const elsewhere = await register({ name: "One" }, { key });
    assert.equal(elsewhere.status, 201);
  });

  it("10 parallel requests with one key register one agent", async () => {
    const ip = freshIp();
    const key = randomUUID();
    const results = await Promise.all(Array.from({ length: 10 }, () => register({ name: "Parallel" }, { ip, key })));
    for (const r of results) assert.equal(r.status, 201, JSON.stringify(r.body));
    assert.equal(new Set(results.map((r) => r.body.agentId)).size, 1);
    assert.equal(new Set(results.map((r) => r.body.claimCode)).size, 1);
    const rows = await db.query("select count(*)::int n from api.agent_wallet where registered_ip = $1", [
      rateKeyOf(ip),
    ]);
    assert.equal(rows.rows[0].n, 1);
  });

  it("a client that gave up while the mint was pending gets the same agent on retry", async () => {
    const ip = freshIp();
    const key = randomUUID();
    await rpc("evm_setAutomine", [false]);
    let abandoned: unknown;
    try {
      abandoned = await fetch(`${stack.apiUrl}/api/agents/register`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ip, "idempotency-key": key },
        body: JSON.stringify({ name: "Patient" }),
        signal: AbortSignal.timeout(1_500),
      }).catch((e: Error) => e);
      // The server got it: the wallet row exists, the mint is pending in the mempool.
      await waitUntil("registration in flight", async () => {
        const r = await db.query("select 1 from api.agent_wallet where registered_ip = $1", [rateKeyOf(ip)]);
        return (r.rowCount ?? 0) > 0;
      });
    } finally {
      await rpc("evm_setAutomine", [true]);
      await rpc("evm_mine");
    }
    assert.ok(abandoned instanceof Error, "the first client timed out");
    const retry = await register({ name: "Patient" }, { ip, key });
    assert.equal(retry.status, 201, JSON.stringify(retry.body));
    const rows = await db.query<{ claim_code_hash: string; agent_id: string }>(
      "select claim_code_hash, agent_id from api.agent_wallet where registered_ip = $1",
      [rateKeyOf(ip)],
    );
    assert.equal(rows.rowCount, 1, "one agent, not two");
    assert.equal(Number(rows.rows[0]!.agent_id), retry.body.agentId);
    // The code in the retried answer is the one the agent was registered with: it claims.
    const { body } = await claimBody(retry.body.agentId, retry.body.claimCode);
    const claimed = await api("POST", `/api/agents/${retry.body.agentId}/claim`, { body });
    assert.equal(claimed.status, 200, JSON.stringify(claimed.body));
  });
});

describe("registration and claim with the indexer stopped", () => {
  let fast: Awaited<ReturnType<typeof startExtraApi>>;
  before(async () => {
    // An API process that gives up waiting on the indexer after 1 s (the stack's waits 30 s).
    fast = await startExtraApi({ INDEXER_WAIT_MS: "1000", JOBS_ENABLED: "false" });
  });
  after(async () => {
    await fast.stop();
  });

  it("answers with the claim code and then the key; a retry of the claim returns the same key", async () => {
    const resume = await freezeProcessOnPort(stack.indexerUrl);
    let reg: Awaited<ReturnType<typeof register>>;
    let claimed: Response;
    let retried: Response;
    const { claimant, body } = await (async () => {
      try {
        reg = await register({ name: "No Indexer" }, { baseUrl: fast.url });
        assert.equal(reg.status, 201, JSON.stringify(reg.body));
        assert.match(reg.body.claimCode, /^[A-Za-z0-9_-]{32}$/);
        const signed = await claimBody(reg.body.agentId, reg.body.claimCode);
        const post = () =>
          fetch(`${fast.url}/api/agents/${reg.body.agentId}/claim`, {
            method: "POST",
            headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
            body: JSON.stringify(signed.body),
          });
        claimed = await post();
        retried = await post();
        return signed;
      } finally {
        resume();
      }
    })();
    assert.equal(claimed!.status, 200);
    const first = (await claimed!.json()) as any;
    assert.equal(privateKeyToAccount(first.privateKey).address, reg!.body.walletAddress);
    assert.equal(retried!.status, 200, "the same claimant may fetch it again within the window");
    assert.equal(((await retried!.json()) as any).privateKey, first.privateKey);
    // Anyone else is refused, even with the code.
    const { body: otherBody } = await claimBody(reg!.body.agentId, reg!.body.claimCode);
    const other = await api("POST", `/api/agents/${reg!.body.agentId}/claim`, { body: otherBody });
    assert.equal(other.status, 400);
    assert.equal(other.body.error.code, "CLAIM_ALREADY_USED");
    assert.ok(claimant && body);
    await waitUntil("indexer caught up", async () => {
      const r = await db.query("select claimed from chain.agent where id = $1", [reg!.body.agentId]);
      return r.rows[0]?.claimed === true;
    });
  });
});

describe("claim: the key leaves once, then is erased", () => {
  it("after the redelivery window the key is erased and a retry is refused", async () => {
    const reg = await register({ name: "Erase Me" });
    const { body } = await claimBody(reg.body.agentId, reg.body.claimCode);
    const first = await api("POST", `/api/agents/${reg.body.agentId}/claim`, { body });
    assert.equal(first.status, 200);
    assert.ok(new Date(first.body.keyErasedAt).getTime() > Date.now());
    // The window ends (moved to now): retries are refused at once, and the custody job erases the key.
    await db.query("update api.agent_wallet set key_redelivery_until = now() where agent_id = $1", [reg.body.agentId]);
    const late = await api("POST", `/api/agents/${reg.body.agentId}/claim`, { body });
    assert.equal(late.status, 400);
    assert.equal(late.body.error.code, "CLAIM_ALREADY_USED");
    await waitUntil(
      "key erased",
      async () => {
        const r = await db.query("select encrypted_key from api.agent_wallet where agent_id = $1", [reg.body.agentId]);
        return r.rows[0].encrypted_key === null;
      },
      // The custody job ticks every second, one run at a time (singleton queue): on a loaded 2-core CI machine a
      // run of its other chores (orphaned mints, idempotency records) once kept the erasure past 15 s.
      60_000,
    );
  });
});

describe("registration: orphaned mints are adopted", () => {
  it("a mint whose answer was lost is bound to its wallet; one that cannot be adopted does not hold up the rest", async () => {
    const poisoned = await register({ name: "Unreadable File" });
    const lost = await register({ name: "Answer Lost" });
    assert.equal(poisoned.status, 201, JSON.stringify(poisoned.body));
    assert.equal(lost.status, 201, JSON.stringify(lost.body));
    // Both look as a mint whose outcome was unknown looks: minted on chain, the wallet unbound. The older one's
    // registration file is gone, so it cannot be adopted; the job takes the oldest first.
    const unbind = (agentId: number, age: string, uri?: string) =>
      db.query(
        `update api.agent_wallet set agent_id = null, mint_uri = coalesce($3, mint_uri),
           created_at = now() - $2::interval where agent_id = $1`,
        [agentId, age, uri ?? null],
      );
    const walletOf = async (address: string) =>
      (await db.query("select agent_id from api.agent_wallet where lower(wallet_address) = lower($1)", [address]))
        .rows[0];
    await unbind(
      poisoned.body.agentId,
      "10 minutes",
      "ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy",
    );
    await unbind(lost.body.agentId, "5 minutes");
    try {
      await waitUntil(
        "the lost mint adopted",
        async () =>
          (await walletOf(lost.body.walletAddress)).agent_id === String(lost.body.agentId) ? true : undefined,
        60_000,
      );
      assert.equal(
        (await walletOf(poisoned.body.walletAddress)).agent_id,
        null,
        "not adoptable: left for a later tick",
      );
      const profile = await api("GET", `/api/agents/${lost.body.agentId}`);
      assert.equal(profile.status, 200, JSON.stringify(profile.body));
      assert.equal(profile.body.name, "Answer Lost");
    } finally {
      await db.query("update api.agent_wallet set agent_id = $1 where lower(wallet_address) = lower($2)", [
        poisoned.body.agentId,
        poisoned.body.walletAddress,
      ]);
    }
  });
});

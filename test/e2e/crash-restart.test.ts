// Crash and restart: the stack (scripts/lib/supervise.ts) restarts a service that dies, /ready notices a stalled
// indexer by its heartbeat (block lag never grows on a quiet local chain), and a restarted indexer resumes from its
// checkpoint. Each service (indexer, relayer, API, bundler) is killed with SIGKILL in turn while registrations keep
// arriving; every accepted registration then appears exactly once, in the API and in the indexer's tables.
import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import { busyPorts } from "../../scripts/lib/ports.ts";
import { freezeProcessOnPort } from "../support/processes.ts";
import { db, freshIp, stack, waitUntil } from "../support/stack.ts";

after(() => db.end());

interface ReadyBody {
  failing?: string[];
  checks?: { indexer?: { error?: string; heartbeatAgeSeconds?: number } };
}
async function ready(): Promise<{ status: number; body: ReadyBody } | undefined> {
  try {
    const res = await fetch(`${stack.apiUrl}/ready`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: (await res.json()) as ReadyBody };
  } catch {
    return undefined; // the API itself is restarting
  }
}
const readyAgain = () => waitUntil("/ready 200", async () => (await ready())?.status === 200, 90_000, 250);

/** The pid listening at `url` (the service itself, not the supervisor's launcher). */
async function pidAt(url: string): Promise<number> {
  const [holder] = await busyPorts([Number(new URL(url).port)]);
  assert.ok(holder?.pid, `nothing listens at ${url}`);
  return holder.pid;
}

interface Accepted {
  name: string;
  agentId: number;
  wallet: string;
}

/** Registrations from `workers` clients at once until `stop()`; only 201 answers count as accepted. */
function registrationLoad(tag: string, workers = 3) {
  const accepted: Accepted[] = [];
  const failures = new Map<string, number>();
  let running = true;
  let n = 0;
  const worker = async () => {
    while (running) {
      const name = `crash-${tag}-${n++}-${Math.random().toString(36).slice(2, 6)}`;
      try {
        const res = await fetch(`${stack.apiUrl}/api/agents/register`, {
          method: "POST",
          headers: { "content-type": "application/json", "x-forwarded-for": freshIp() },
          body: JSON.stringify({ name, capabilities: ["coding"] }),
          signal: AbortSignal.timeout(60_000),
        });
        const body = (await res.json().catch(() => ({}))) as { agentId?: number; walletAddress?: string };
        if (res.status === 201) accepted.push({ name, agentId: body.agentId!, wallet: body.walletAddress! });
        else failures.set(String(res.status), (failures.get(String(res.status)) ?? 0) + 1);
      } catch (error) {
        const key = (error as Error).name;
        failures.set(key, (failures.get(key) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 200)); // the API is down: do not spin
      }
    }
  };
  const done = Promise.all(Array.from({ length: workers }, worker));
  return {
    accepted,
    failures,
    /** Resolves once `count` more registrations than now have been accepted. */
    more: (count: number, timeoutMs = 120_000) => {
      const target = accepted.length + count;
      return waitUntil(`${count} more accepted registrations`, async () => accepted.length >= target, timeoutMs, 100);
    },
    async stop() {
      running = false;
      await done;
    },
  };
}

/** Every accepted registration is served by the API and indexed exactly once; no agent id is indexed twice. */
async function assertEachOnce(accepted: Accepted[]): Promise<void> {
  const ids = accepted.map((a) => a.agentId);
  assert.equal(new Set(ids).size, ids.length, "no two accepted registrations share an agent id");
  for (const a of accepted) {
    const agent = await waitUntil(
      `agent ${a.agentId} served`,
      async () => {
        const res = await fetch(`${stack.apiUrl}/api/agents/${a.agentId}`);
        return res.status === 200 ? ((await res.json()) as { name: string }) : undefined;
      },
      60_000,
    );
    assert.equal(agent.name, a.name);
  }
  const indexed = await db.query<{ id: string; n: number }>(
    "select id::text, count(*)::int as n from chain.agent where id = any($1::numeric[]) group by id",
    [ids],
  );
  assert.equal(indexed.rowCount, ids.length, "every accepted agent is indexed");
  assert.ok(
    indexed.rows.every((r) => r.n === 1),
    "each indexed once",
  );
  const duplicates = await db.query("select id from chain.agent group by id having count(*) > 1");
  assert.equal(duplicates.rowCount, 0, "no agent indexed twice anywhere");
  const wallets = await db.query<{ agent_id: string }>(
    "select agent_id::text from api.agent_wallet where lower(wallet_address) = any($1::text[])",
    [accepted.map((a) => a.wallet.toLowerCase())],
  );
  assert.deepEqual(
    wallets.rows.map((r) => Number(r.agent_id)).sort((x, y) => x - y),
    [...ids].sort((x, y) => x - y),
    "one wallet row per accepted registration, bound to its agent",
  );
}

describe("crash and restart", () => {
  it("/ready reports a stalled indexer by its heartbeat, and recovers when it runs again", async () => {
    assert.equal((await ready())?.status, 200);
    const resume = await freezeProcessOnPort(stack.indexerUrl);
    try {
      const stalled = await waitUntil(
        "/ready to report the stalled indexer",
        async () => {
          const r = await ready();
          return r?.status === 503 && r.body.failing?.includes("indexer") ? r : undefined;
        },
        60_000,
        500,
      );
      assert.match(stalled.body.checks?.indexer?.error ?? "", /no heartbeat for \d+ s/);
    } finally {
      resume();
    }
    await readyAgain();
  });

  for (const service of ["indexer", "relayer", "api", "bundler"] as const) {
    it(`restarts the ${service} killed under load; every accepted registration appears once`, async () => {
      const url = {
        indexer: stack.indexerUrl,
        relayer: stack.relayerUrl,
        api: stack.apiUrl,
        bundler: stack.env.BUNDLER_URL!,
      }[service];
      assert.ok(url, `the stack runs a ${service}`);
      const load = registrationLoad(service);
      try {
        await load.more(3);
        const pid = await pidAt(url);
        process.kill(pid, "SIGKILL");
        // Restarted by the stack: a new process listens at the same address and /ready is 200 again.
        await waitUntil(
          `a new ${service} process`,
          async () => {
            const now = await busyPorts([Number(new URL(url).port)]);
            return now[0]?.pid !== undefined && now[0].pid !== pid;
          },
          90_000,
          250,
        );
        await readyAgain();
        await load.more(3);
      } finally {
        await load.stop();
      }
      await assertEachOnce(load.accepted);
    });
  }
});

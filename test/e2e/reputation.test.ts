// Reputation, leaderboard, stats, market and the background jobs, against the real stack: real HEAD pings to test
// HTTP servers that go up and down, runs completed and rejected on chain, chain time moved for the daily job.
import assert from "node:assert/strict";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import { loadApiEnv } from "@agenthub/api/env";
import { QUEUES } from "@agenthub/api/lib/queues";
import { startApi } from "@agenthub/api/server";
import { RunEscrowAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Hex, keccak256, parseEventLogs, toHex } from "viem";
import { faucet, registerAgent, stakedAgent, walletFromKey } from "../support/agents.ts";
import {
  api,
  chain,
  db,
  dbNow,
  deployments,
  increaseTime,
  jobRanSince,
  newWallet,
  publicClient,
  stack,
  waitUntil,
} from "../support/stack.ts";

type Mode = "up" | "error" | "hang" | "slow";

/** The queues pg-boss schedules on a fixed interval (one job per time slot, whichever process takes it). */
const PERIODIC_QUEUES = [QUEUES.uptimePass, QUEUES.reputationDaily, QUEUES.verificationExpiry, QUEUES.reputationPoll];

/** A webhook target whose behaviour the test switches; records each request it receives. */
async function webhookServer() {
  let mode: Mode = "up";
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    if (req.url === "/redirect-blocked") {
      res.writeHead(302, { location: "http://169.254.169.254/latest/meta-data/" });
      res.end();
      return;
    }
    if (req.url === "/redirect-ok") {
      res.writeHead(301, { location: "/health" });
      res.end();
      return;
    }
    if (mode === "hang") return; // never answers
    if (mode === "slow") {
      setTimeout(() => {
        res.writeHead(200);
        res.end();
      }, 250);
      return;
    }
    res.writeHead(mode === "up" ? 200 : 503);
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: (path = "/health") => `http://127.0.0.1:${port}${path}`,
    hits,
    setMode: (m: Mode) => {
      mode = m;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

const servers: Awaited<ReturnType<typeof webhookServer>>[] = [];
after(async () => {
  for (const s of servers) await s.close().catch(() => {});
});

async function lastCheck(agentId: number) {
  const r = await db.query(
    "select up, status_code, latency_ms, error, target from api.uptime_check where agent_id = $1 order by id desc limit 1",
    [agentId],
  );
  return r.rows[0] as
    | { up: boolean; status_code: number | null; latency_ms: number | null; error: string | null; target: string }
    | undefined;
}

const waitCheck = (agentId: number, pred: (c: NonNullable<Awaited<ReturnType<typeof lastCheck>>>) => boolean) =>
  waitUntil(`a matching uptime check of agent ${agentId}`, async () => {
    const c = await lastCheck(agentId);
    return c && pred(c) ? c : undefined;
  });

async function reputation(agentId: number) {
  const res = await api("GET", `/api/reputation/${agentId}`);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return res.body;
}

/** The score must be the sum of its breakdown (each component: value x weight x 100). */
function assertBreakdownAddsUp(rep: any) {
  const b = rep.breakdown;
  let sum = 0;
  for (const k of ["successRate", "uptime", "responseTime", "attestations", "verifications"]) {
    assert.equal(b[k].points, Math.round(b[k].value * b[k].weight * 100 * 100) / 100, k);
    sum += b[k].value * b[k].weight * 100;
  }
  assert.equal(rep.score, Math.round(sum * 100) / 100);
}

async function chainNow(): Promise<bigint> {
  return (await publicClient.getBlock()).timestamp;
}

/** Poster creates and funds a run on chain; the agent's owner claims and submits; returns the run id. */
async function runToSubmission(agent: { agentId: number; owner: { key: Hex; address: Hex } }, reward = 5_000_000n) {
  const poster = newWallet();
  await faucet(poster.address, reward * 2n, 10n ** 17n);
  await faucet(agent.owner.address, 0n, 10n ** 17n);
  const escrow = deployments.contracts.RunEscrow.address;
  const approve = await poster.wallet.writeContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "approve",
    args: [escrow, reward * 2n],
    account: poster.account,
    chain,
  });
  await publicClient.waitForTransactionReceipt({ hash: approve });
  const create = await poster.wallet.writeContract({
    address: escrow,
    abi: RunEscrowAbi,
    functionName: "createRun",
    args: [reward, (await chainNow()) + 86_400n, 0, 0n, "ipfs://reputation-test"],
    account: poster.account,
    chain,
  });
  const receipt = await publicClient.waitForTransactionReceipt({ hash: create });
  const [created] = parseEventLogs({ abi: RunEscrowAbi, logs: receipt.logs, eventName: "RunCreated" });
  const runId = created!.args.runId;
  const owner = walletFromKey(agent.owner.key);
  for (const [functionName, args] of [
    ["claim", [runId, BigInt(agent.agentId)]],
    ["submit", [runId, keccak256(toHex(`deliverable ${runId}`))]],
  ] as const) {
    const hash = await owner.wallet.writeContract({
      address: escrow,
      abi: RunEscrowAbi,
      functionName,
      args: args as never,
      account: owner.account,
      chain,
    });
    await publicClient.waitForTransactionReceipt({ hash });
  }
  return {
    runId,
    finish: async (functionName: "approve" | "reject") => {
      const hash = await poster.wallet.writeContract({
        address: escrow,
        abi: RunEscrowAbi,
        functionName,
        args: [runId],
        account: poster.account,
        chain,
      });
      await publicClient.waitForTransactionReceipt({ hash });
    },
  };
}

describe("reputation: reads", () => {
  it("a new agent starts at 50 with every field and a breakdown; unknown agents are 404", async () => {
    const reg = await registerAgent({ capabilities: ["research"], programmingLangs: ["python"] });
    const rep = await reputation(reg.agentId);
    for (const k of [
      "agentId",
      "score",
      "completions",
      "totalClaimed",
      "uptimePercentage",
      "avgResponseTimeMs",
      "attestationCount",
      "attestationScore",
      "verificationBadges",
      "codingScore",
      "researchScore",
      "contentScore",
      "updatedAt",
    ]) {
      assert.ok(k in rep, k);
    }
    assert.equal(rep.agentId, reg.agentId);
    assert.equal(rep.score, 50);
    assert.equal(rep.completions, 0);
    assert.equal(rep.totalClaimed, 0);
    assert.equal(rep.attestationCount, 0);
    assert.equal(rep.attestationScore, 0);
    assert.deepEqual(rep.verificationBadges, []);
    assert.equal(rep.researchScore, 50, "declares research");
    assert.equal(rep.codingScore, 50, "programming languages declare coding");
    assert.equal(rep.contentScore, 0);
    assert.equal(rep.breakdown.successRate.basis, "prior");
    assert.equal(rep.breakdown.uptime.basis, "new-agent-grace");
    assertBreakdownAddsUp(rep);
    assert.ok(!Number.isNaN(Date.parse(rep.updatedAt)));
    // The agent detail reads the same stored score.
    assert.equal((await api("GET", `/api/agents/${reg.agentId}`)).body.reputation.score, 50);
    const history = await api("GET", `/api/reputation/${reg.agentId}/history`);
    assert.equal(history.status, 200);
    assert.equal(history.body.history.length, 1);
    assert.equal(history.body.history[0].score, 50);

    const missing = await api("GET", "/api/reputation/987654321");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "AGENT_NOT_FOUND");
    assert.equal((await api("GET", "/api/reputation/987654321/history")).body.error.code, "AGENT_NOT_FOUND");
    assert.equal((await api("GET", "/api/reputation/abc")).status, 400);
  });

  it("leaderboard: limit default 10, max 100, sortBy score|completions|uptime, unknown sortBy 400", async () => {
    for (let i = 0; i < 3; i++) await registerAgent();
    const def = await api("GET", "/api/reputation");
    assert.equal(def.status, 200);
    assert.ok(def.body.leaderboard.length <= 10);
    assert.equal(
      def.body.leaderboard.length,
      Math.min(10, Number((await db.query("select count(*) from chain.agent")).rows[0].count)),
    );
    def.body.leaderboard.forEach((item: any, i: number) => {
      assert.equal(item.rank, i + 1);
      for (const k of ["agentId", "name", "score", "completions", "uptimePercentage"]) assert.ok(k in item, k);
      if (i > 0) assert.ok(def.body.leaderboard[i - 1].score >= item.score, "sorted by score");
    });
    const byCompletions = await api("GET", "/api/reputation?sortBy=completions&limit=100");
    assert.equal(byCompletions.status, 200);
    const c = byCompletions.body.leaderboard.map((x: any) => x.completions);
    assert.deepEqual(
      c,
      [...c].sort((a: number, b: number) => b - a),
    );
    const byUptime = await api("GET", "/api/reputation?sortBy=uptime&limit=5");
    assert.equal(byUptime.status, 200);
    assert.ok(byUptime.body.leaderboard.length <= 5);
    const u = byUptime.body.leaderboard.map((x: any) => x.uptimePercentage);
    assert.deepEqual(
      u,
      [...u].sort((a: number, b: number) => b - a),
    );

    const bad = await api("GET", "/api/reputation?sortBy=karma");
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.code, "INVALID_SORT_BY");
    assert.equal((await api("GET", "/api/reputation?limit=101")).status, 400);
    assert.equal((await api("GET", "/api/reputation?limit=0")).status, 400);
  });

  it("stats and market aggregate the platform", async () => {
    const tag = `trend-${Math.random().toString(36).slice(2, 8)}`;
    for (let i = 0; i < 3; i++) await registerAgent({ tools: [tag], domains: ["defi"] });
    const stats = await api("GET", "/api/stats");
    assert.equal(stats.status, 200);
    const agents = Number((await db.query("select count(*) from chain.agent")).rows[0].count);
    const runs = Number((await db.query("select count(*) from chain.run")).rows[0].count);
    assert.equal(stats.body.totalAgents, agents);
    assert.equal(stats.body.totalBounties, runs);
    assert.equal(typeof stats.body.activeBounties, "number");
    assert.equal(typeof stats.body.totalCompletions, "number");
    assert.match(stats.body.totalVolume, /^\d+$/);
    assert.ok(stats.body.averageReputation >= 0 && stats.body.averageReputation <= 100);

    const market = await api("GET", "/api/intelligence/market");
    assert.equal(market.status, 200);
    assert.equal(market.body.stats.totalAgents, agents);
    assert.equal(market.body.stats.avgReputation, stats.body.averageReputation);
    for (const list of ["capabilities", "programmingLangs", "domains", "tools"]) {
      const items = market.body.trending[list];
      assert.ok(Array.isArray(items) && items.length <= 5, list);
      for (let i = 1; i < items.length; i++) assert.ok(items[i - 1].count >= items[i].count, `${list} sorted`);
    }
    // Independently counted top five tools.
    const expected = await db.query(
      `select lower(t) name, count(distinct agent_id)::int count from api.agent_profile, unnest(tools) t
        group by 1 order by 2 desc, 1 limit 5`,
    );
    assert.deepEqual(market.body.trending.tools, expected.rows);
    const domains = market.body.trending.domains.find((d: any) => d.name === "defi");
    assert.ok(domains && domains.count >= 3);
  });
});

describe("reputation: uptime job", () => {
  it("pings the webhook (HEAD); 2xx is UP and feeds uptime and response time; 5xx and refused are DOWN", async () => {
    const target = await webhookServer();
    servers.push(target);
    const reg = await registerAgent({ endpoints: { webhook: target.url() } });
    const up = await waitCheck(reg.agentId, (c) => c.up);
    assert.equal(up.status_code, 200);
    assert.ok(up.latency_ms !== null && up.latency_ms < 1500);
    assert.ok(target.hits.includes("HEAD /health"), "a HEAD request reached the webhook");

    const healthy = await waitUntil("reputation with observed uptime", async () => {
      const rep = await reputation(reg.agentId);
      return rep.breakdown.uptime.basis === "observed" ? rep : undefined;
    });
    assert.equal(healthy.uptimePercentage, 100);
    assert.ok(healthy.avgResponseTimeMs < 100);
    assert.equal(healthy.score, 50);
    assertBreakdownAddsUp(healthy);

    target.setMode("error");
    const down = await waitCheck(reg.agentId, (c) => !c.up);
    assert.equal(down.status_code, 503);
    assert.equal(down.error, "HTTP_503");
    const degraded = await waitUntil("a lower score after a failed check", async () => {
      const rep = await reputation(reg.agentId);
      return rep.uptimePercentage < 100 ? rep : undefined;
    });
    assert.ok(degraded.score < 50, `score ${degraded.score}`);
    const b = degraded.breakdown.uptime;
    assert.equal(b.value, Math.round((b.successfulChecks / b.checks) * 10_000) / 10_000);
    assertBreakdownAddsUp(degraded);

    await target.close();
    await waitCheck(reg.agentId, (c) => c.error === "CONNECTION_REFUSED");

    const history = await api("GET", `/api/reputation/${reg.agentId}/history?limit=100`);
    assert.ok(
      history.body.history.some((h: any) => h.trigger === "uptime"),
      "uptime checks moved the score",
    );
    const ids = history.body.history.map((h: any) => h.id);
    assert.deepEqual(
      ids,
      [...ids].sort((a: number, b: number) => b - a),
      "newest first",
    );
  });

  it("slow answers land in a lower response band; a hanging endpoint times out", async () => {
    const slow = await webhookServer();
    servers.push(slow);
    slow.setMode("slow");
    const a = await registerAgent({ endpoints: { webhook: slow.url() } });
    await waitCheck(a.agentId, (c) => c.up);
    const rep = await waitUntil("observed response time", async () => {
      const r = await reputation(a.agentId);
      return r.breakdown.responseTime.basis === "observed" ? r : undefined;
    });
    assert.ok(rep.avgResponseTimeMs >= 200 && rep.avgResponseTimeMs < 500, `${rep.avgResponseTimeMs} ms`);
    assert.equal(rep.breakdown.responseTime.value, 0.7);

    const hang = await webhookServer();
    servers.push(hang);
    hang.setMode("hang");
    const b = await registerAgent({ endpoints: { webhook: hang.url() } });
    const timedOut = await waitCheck(b.agentId, (c) => !c.up);
    assert.equal(timedOut.error, "TIMEOUT");
    assert.equal(timedOut.latency_ms, null);
  });

  it("refuses link-local targets, also behind a redirect; follows redirects to allowed targets", async () => {
    const metadata = await registerAgent({ endpoints: { webhook: "http://169.254.169.254/latest/meta-data/" } });
    const blocked = await waitCheck(metadata.agentId, () => true);
    assert.equal(blocked.up, false);
    assert.equal(blocked.error, "BLOCKED_TARGET");

    const target = await webhookServer();
    servers.push(target);
    const redirected = await registerAgent({ endpoints: { webhook: target.url("/redirect-blocked") } });
    const viaRedirect = await waitCheck(redirected.agentId, () => true);
    assert.equal(viaRedirect.error, "BLOCKED_TARGET");
    assert.equal(viaRedirect.target, "http://169.254.169.254/latest/meta-data/");

    const follows = await registerAgent({ endpoints: { webhook: target.url("/redirect-ok") } });
    const ok = await waitCheck(follows.agentId, (c) => c.up);
    assert.equal(ok.target, target.url("/health"));
  });
});

describe("reputation: triggers", () => {
  it("run completion and failure on chain move the score (indexed run stats are polled)", async () => {
    const agent = await stakedAgent();
    assert.equal((await reputation(agent.agentId)).score, 50);

    const first = await runToSubmission(agent);
    await first.finish("approve");
    // successRate 1/1: 0.4 + 0.2 + 0.1 = 70
    const completed = await waitUntil("score after a completed run", async () => {
      const rep = await reputation(agent.agentId);
      return rep.completions === 1 && rep.score === 70 ? rep : undefined;
    });
    assert.equal(completed.breakdown.successRate.basis, "observed");
    assert.equal(completed.totalClaimed, 1);

    const second = await runToSubmission(agent);
    await second.finish("reject");
    // 1 of 2 claimed runs completed: 0.5 x 0.4 + 0.3 = 50
    const failed = await waitUntil("score after a rejected run", async () => {
      const rep = await reputation(agent.agentId);
      return rep.totalClaimed === 2 && rep.breakdown.successRate.failures === 1 && rep.score === 50 ? rep : undefined;
    });
    assertBreakdownAddsUp(failed);
    // Newest first: back to 50 after the second claim, 70 after the completion, the starting 50 last. A poll (every
    // second) that lands while a run is claimed but not finished also records the in-between 30 (0 of 1 claimed
    // runs completed); those entries come and go with timing, the order of the others does not. The poll normally
    // records them as "run"; the bulk job (every 5 s in tests) may get there first.
    const history = (await api("GET", `/api/reputation/${agent.agentId}/history`)).body.history;
    const scores = history.map((h: any) => h.score as number);
    assert.deepEqual(
      scores.filter((s: number) => s !== 30),
      [50, 70, 50],
      `history ${scores.join(", ")}`,
    );
    assert.ok(
      scores.every((s: number) => [30, 50, 70].includes(s)),
      `history ${scores.join(", ")}`,
    );
    for (const h of history.slice(0, -1)) assert.ok(["run", "daily"].includes(h.trigger), h.trigger);
  });

  it("two API processes share the queue: one job per slot, never two runs of a job at once", async () => {
    const second = await startApi(loadApiEnv({ ...process.env, ...stack.env, PORT: "0", LOG_LEVEL: "silent" }), 0);
    try {
      // Both processes now compete for every slot: wait until each periodic queue has run a job since then (the
      // slowest, reputation-update, every 5 s in tests), instead of sleeping through a guessed number of slots.
      const since = await dbNow();
      for (const queue of PERIODIC_QUEUES) await jobRanSince(queue, since);
    } finally {
      await second.close();
    }
    const duplicates = await db.query(
      `select name, singleton_on, count(*)::int n from pgboss.job
        where singleton_on is not null group by 1, 2 having count(*) > 1`,
    );
    assert.deepEqual(duplicates.rows, [], "one job per queue and time slot");
    const overlapping = await db.query(
      `select a.name from pgboss.job a join pgboss.job b
          on a.name = b.name and a.id < b.id
         and a.started_on < coalesce(b.completed_on, now()) and b.started_on < coalesce(a.completed_on, now())
       where a.name = any($1) and a.started_on is not null and b.started_on is not null`,
      [PERIODIC_QUEUES],
    );
    assert.deepEqual(overlapping.rows, [], "periodic jobs never overlap");
    const ran = await db.query(
      "select name, count(*)::int n from pgboss.job where state = 'completed' group by name order by name",
    );
    const names = ran.rows.map((r: any) => r.name);
    for (const name of [
      "reputation-poll",
      "reputation-update",
      "uptime-batch",
      "uptime-check",
      "verification-expiry",
    ]) {
      assert.ok(names.includes(name), `${name} ran`);
    }
  });

  it("the daily job recomputes everyone: after 30 days without checks the uptime grace ends (50 -> 20)", async () => {
    const idle = await registerAgent({ capabilities: ["writing"] });
    assert.equal((await reputation(idle.agentId)).score, 50);
    await increaseTime(31 * 86_400);
    const aged = await waitUntil(
      "the daily recompute",
      async () => {
        const rep = await reputation(idle.agentId);
        return rep.score === 20 ? rep : undefined;
      },
      30_000,
    );
    assert.equal(aged.breakdown.uptime.basis, "no-data");
    assert.equal(aged.contentScore, 50, "capability score still uses the success-rate prior");
    const history = (await api("GET", `/api/reputation/${idle.agentId}/history`)).body.history;
    assert.equal(history[0].trigger, "daily");
    assert.equal(history[0].score, 20);
  });
});

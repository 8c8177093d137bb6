// The runnable examples (examples/*.ts) as real processes against the real stack: an agent that polls, claims,
// submits and resubmits; a poster that funds, asks for a revision and approves; a paid search. Balances checked.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import type { Address } from "viem";
import { faucet, stakedAgent } from "../support/agents.ts";
import { escrowAddress, rewardsPaidOut, usdcBalance } from "../support/runs.ts";
import { db, deployments, newWallet, stack } from "../support/stack.ts";

after(() => db.end());

const root = new URL("../..", import.meta.url).pathname;
const children: ChildProcess[] = [];
after(() => {
  for (const c of children) if (c.exitCode === null) c.kill("SIGKILL");
});

/** Runs an example to its end; resolves with its exit code and its JSON log lines. */
function example(file: string, env: Record<string, string>, args: string[] = [], timeoutMs = 90_000) {
  const child = spawn(process.execPath, ["--import", "tsx", join(root, "examples", file), ...args], {
    cwd: root,
    env: {
      PATH: process.env.PATH ?? "",
      AGENTHUB_API: stack.apiUrl,
      AGENTHUB_RPC: stack.rpcUrl,
      POLL_MS: "500",
      ...env,
    },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d) => (stdout += d));
  child.stderr!.on("data", (d) => (stderr += d));
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  return new Promise<{ code: number; events: any[]; stdout: string; stderr: string }>((resolve) =>
    child.on("close", (code) => {
      clearTimeout(timer);
      const events = stdout
        .split("\n")
        .filter((l) => l.startsWith("{"))
        .map((l) => JSON.parse(l));
      resolve({ code: code ?? -1, events, stdout, stderr });
    }),
  );
}

describe("examples", () => {
  it("agent.ts and poster.ts carry a run to payment between them (with a revision)", async () => {
    const agent = await stakedAgent();
    const poster = newWallet();
    await faucet(poster.address, 20_000_000n);
    const marker = `example-${Math.random().toString(36).slice(2, 8)}`;
    const before = {
      owner: await usdcBalance(agent.owner.address),
      poster: await usdcBalance(poster.address),
      escrow: await usdcBalance(escrowAddress),
    };
    const [worker, boss] = await Promise.all([
      example("agent.ts", {
        AGENT_ID: String(agent.agentId),
        AGENT_PRIVATE_KEY: agent.agentKey,
        OWNER_PRIVATE_KEY: agent.owner.key,
        MATCH: marker,
      }),
      example("poster.ts", { POSTER_PRIVATE_KEY: poster.key, TITLE: `Summarize (${marker})`, REWARD: "5000000" }),
    ]);
    assert.equal(boss.code, 0, boss.stderr);
    assert.equal(worker.code, 0, worker.stderr);
    const runId = boss.events.find((e) => e.event === "posted").runId;
    assert.deepEqual(
      worker.events.filter((e) => e.runId === runId).map((e) => e.event),
      ["claimed", "submitted", "resubmitted", "approved"],
    );
    assert.deepEqual(
      boss.events.map((e) => e.event),
      ["posted", "revision-requested", "approved"],
    );
    // The fee is the rate in force at funding (governance may change it); it stays accrued in the escrow.
    const posted = boss.events.find((e) => e.event === "posted");
    assert.equal(posted.reward, "5000000");
    const fee = BigInt(posted.fee);
    await rewardsPaidOut(agent.agentId);
    assert.equal(await usdcBalance(agent.owner.address), before.owner + 5_000_000n);
    assert.equal(await usdcBalance(poster.address), before.poster - 5_000_000n - fee);
    assert.equal(await usdcBalance(escrowAddress), before.escrow + fee);
  });

  it("paid-search.ts pays 1000 USDC base units with x402", async () => {
    const payer = newWallet();
    await faucet(payer.address, 10_000n);
    const platform = deployments.treasury as Address;
    const platformBefore = await usdcBalance(platform);
    const res = await example("paid-search.ts", { PAYER_PRIVATE_KEY: payer.key, CAPABILITIES: "coding" }, ["agent"]);
    assert.equal(res.code, 0, res.stderr);
    const paid = res.events.find((e) => e.event === "paid");
    assert.equal(paid.payment.scheme, "x402");
    assert.match(paid.payment.txHash, /^0x[0-9a-f]{64}$/);
    assert.equal(await usdcBalance(payer.address), 9_000n);
    assert.equal(await usdcBalance(platform), platformBefore + 1_000n);
  });
});

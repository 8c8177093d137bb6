// Reputation anyone can recompute: scripts/recompute-reputation.ts rebuilds each published score from chain events
// (AgentIdentity, RunEscrow, replayed under the indexer's counting rule) and the content-addressed inputs document
// the API publishes, and must agree with the API for a seeded set of agents: a new agent, an agent paid for a run,
// and the same agent's second run for the same poster within a day (claimed, but not counted: the pair rule). A score
// that does not follow from its inputs is reported.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { after, before, describe, it } from "node:test";
import { claimAgent, registerAgent, stakedAgent } from "../support/agents.ts";
import { claim, newPoster, openRun, step } from "../support/runs.ts";
import { api, db, stack, waitUntil } from "../support/stack.ts";

const root = new URL("../..", import.meta.url).pathname;

/** Runs the script against the stack (asynchronously: the test's own HTTP connections stay served meanwhile). */
function recompute(ids: number[]): Promise<{ status: number; output: string }> {
  const args = ["--import", "tsx", "scripts/recompute-reputation.ts", "--api", stack.apiUrl, "--rpc", stack.rpcUrl];
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [...args, ...ids.map(String)],
      { cwd: root, timeout: 180_000 },
      (error, stdout, stderr) => resolve({ status: error ? Number(error.code ?? 1) : 0, output: `${stdout}${stderr}` }),
    );
  });
}

type Inputs = { cid: string; document: { score: number; chain: Record<string, unknown> } };
const inputsOf = async (id: number) => (await api("GET", `/api/reputation/${id}/inputs`)).body as Inputs;

const ids: number[] = [];
let worker: Awaited<ReturnType<typeof stakedAgent>>;

before(async () => {
  const fresh = await registerAgent();
  const claimedOnly = await registerAgent();
  await claimAgent(claimedOnly.agentId, claimedOnly.claimCode);
  worker = await stakedAgent();
  const poster = await newPoster();
  // Two paid runs for the same poster in one day: both claimed and approved, only the first counts.
  for (let i = 0; i < 2; i++) {
    const run = await openRun(poster, { reward: 2_000_000n });
    const owner = worker.owner.key;
    assert.equal((await claim(owner, worker.owner.address, run.bountyId, worker.agentId)).status, 200);
    assert.equal((await step(owner, run.bountyId, "start", "start-run")).status, 200);
    const deliverable = { answer: `work ${i}` };
    assert.equal((await step(owner, run.bountyId, "submit", "submit-run", { deliverable })).status, 200);
    assert.equal((await step(poster.key, run.bountyId, "approve", "approve-run")).status, 200);
  }
  ids.push(fresh.agentId, claimedOnly.agentId, worker.agentId);
  // The API recomputes after indexed run events; the published inputs show the counted completion once it has.
  await waitUntil("the worker's score includes its completion", async () => {
    const { document } = await inputsOf(worker.agentId);
    return document.chain.completions === 1;
  });
});

describe("reputation anyone can recompute", () => {
  it("publishes the inputs content-addressed: the bytes at /ipfs/<cid> are the document", async () => {
    const published = await inputsOf(worker.agentId);
    assert.deepEqual(published.document.chain, {
      registeredAt: published.document.chain.registeredAt,
      totalClaimed: 1,
      completions: 1,
      failures: 0,
    });
    const stored = await fetch(`${stack.apiUrl}/ipfs/${published.cid}`);
    assert.equal(stored.status, 200);
    assert.deepEqual(await stored.json(), published.document);
  });

  it("the script's scores match the API for every seeded agent", async () => {
    const { status, output } = await recompute(ids);
    assert.equal(status, 0, output);
    for (const id of ids) assert.match(output, new RegExp(`agent ${id}: API \\d+, recomputed \\d+ — matches`));
    assert.match(output, /3 agents checked, 0 mismatched/);
  });

  describe("a score that does not follow from its inputs", () => {
    let original: number;
    before(async () => {
      original = (await inputsOf(worker.agentId)).document.score;
      await db.query("update api.reputation set score = score + 7 where agent_id = $1", [worker.agentId]);
    });
    after(() => db.query("update api.reputation set score = $2 where agent_id = $1", [worker.agentId, original]));

    it("is reported, and the script exits 1", async () => {
      const { status, output } = await recompute([worker.agentId]);
      assert.equal(status, 1, output);
      assert.match(output, new RegExp(`agent ${worker.agentId}: .*MISMATCH: the formula gives ${original}`));
    });
  });
});

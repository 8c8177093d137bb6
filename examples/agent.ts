// An agent that works for AgentHub: polls OPEN runs, claims one it can do, starts, submits its work, and follows
// it until the poster approves (resubmitting on a revision request). Run with:
//   AGENTHUB_API=http://localhost:3000 AGENT_ID=1 AGENT_PRIVATE_KEY=0x… pnpm exec tsx examples/agent.ts
// AGENT_PRIVATE_KEY is the agent identity token's owner key or the agent wallet's key (from the claim). The escrow
// takes on-chain consents only from the token's owner: with the wallet's key, also set OWNER_PRIVATE_KEY.
// Optional: MATCH (regex a run's title must match), MIN_REWARD (base units), MAX_RUNS (default 1), POLL_MS.
import { AgentHub, isAgentHubError, type Run } from "@agenthub/sdk";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`set ${name}`);
  return value;
};

const hub = new AgentHub({ apiUrl: env("AGENTHUB_API", "http://localhost:3000"), rpcUrl: process.env.AGENTHUB_RPC });
const signer = privateKeyToAccount(env("AGENT_PRIVATE_KEY") as Hex);
const owner = process.env.OWNER_PRIVATE_KEY ? privateKeyToAccount(process.env.OWNER_PRIVATE_KEY as Hex) : undefined;
/** Who signs the on-chain consents of agent steps (the token's owner). */
const consent = owner ? { consentSigner: owner } : {};
const agentId = Number(env("AGENT_ID"));
const match = new RegExp(env("MATCH", "."), "i");
const minReward = BigInt(env("MIN_REWARD", "0"));
const maxRuns = Number(env("MAX_RUNS", "1"));
const pollMs = Number(env("POLL_MS", "1000"));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (event: string, data: Record<string, unknown>) => console.log(JSON.stringify({ event, ...data }));

/** Reads retried while the API asks to wait (rate limit, busy); writes are not retried blindly. */
async function read<T>(fn: () => Promise<T>): Promise<T> {
  for (;;) {
    try {
      return await fn();
    } catch (error) {
      if (!isAgentHubError(error) || !error.retryable) throw error;
      log("waiting", { code: error.code, seconds: error.retryAfter ?? 1 });
      await sleep((error.retryAfter ?? 1) * 1000);
    }
  }
}

/** The "work": a real agent would call its model or tools here. */
function work(run: Run, feedback?: string) {
  return { answer: `Done: ${run.title}`, notes: feedback ? `revised after: ${feedback}` : "first version" };
}

/** Finds an OPEN run this agent may claim now, or undefined. */
async function findRun(): Promise<Run | undefined> {
  const { runs } = await read(() => hub.runs.list({ state: "OPEN", minReward, limit: 50 }));
  for (const candidate of runs) {
    if (!match.test(candidate.title)) continue;
    const check = await read(() => hub.runs.eligibility(candidate.bountyId, agentId));
    if (check.eligible) return read(() => hub.runs.get(candidate.bountyId));
  }
  return undefined;
}

async function handle(run: Run) {
  try {
    await hub.runs.claim(run.bountyId, { agentId, signer, ...consent });
  } catch (error) {
    // Another agent was faster: look for the next run.
    if (isAgentHubError(error, "RUN_NOT_AVAILABLE")) return false;
    throw error;
  }
  log("claimed", { runId: run.bountyId, reward: run.reward });
  await hub.runs.start(run.bountyId, signer, consent);
  await hub.runs.submit(run.bountyId, { deliverable: work(run) }, signer, consent);
  log("submitted", { runId: run.bountyId });
  let revisions = 0;
  for (;;) {
    await sleep(pollMs);
    const current = await read(() => hub.runs.get(run.bountyId));
    if (current.state === "APPROVED") {
      log("approved", { runId: run.bountyId, reward: current.reward });
      return true;
    }
    if (current.state === "REVISION_REQUESTED" && current.revisions > revisions) {
      revisions = current.revisions;
      const { events } = await read(() => hub.runs.events(run.bountyId));
      const feedback = events.findLast((e) => e.state === "REVISION_REQUESTED")?.note ?? undefined;
      await hub.runs.submit(run.bountyId, { deliverable: work(current, feedback ?? undefined) }, signer, consent);
      log("resubmitted", { runId: run.bountyId, feedback });
    }
    if (["REJECTED", "CANCELLED", "TIMED_OUT", "DISPUTE_EXPIRED", "OPEN"].includes(current.state)) {
      log("ended", { runId: run.bountyId, state: current.state });
      return false;
    }
  }
}

let done = 0;
log("polling", { agentId, signer: signer.address });
while (done < maxRuns) {
  const run = await findRun();
  if (run && (await handle(run))) done++;
  else await sleep(pollMs);
}

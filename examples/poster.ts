// A poster: drafts and funds a run (EIP-2612 permit, relayed: no ETH needed), waits for the agent's submission,
// asks for one revision, then approves and pays. Run with:
//   AGENTHUB_API=http://localhost:3000 AGENTHUB_RPC=http://127.0.0.1:8545 POSTER_PRIVATE_KEY=0x… \
//     pnpm exec tsx examples/poster.ts
// Optional: TITLE, REWARD (USDC base units, default 5000000 = 5 USDC), POLL_MS, REVISE (default true).
import { AgentHub, isAgentHubError } from "@agenthub/sdk";
import type { Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";

const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback;
  if (value === undefined) throw new Error(`set ${name}`);
  return value;
};

const hub = new AgentHub({
  apiUrl: env("AGENTHUB_API", "http://localhost:3000"),
  rpcUrl: env("AGENTHUB_RPC", "http://127.0.0.1:8545"),
});
const poster = privateKeyToAccount(env("POSTER_PRIVATE_KEY") as Hex);
const pollMs = Number(env("POLL_MS", "1000"));
const revise = env("REVISE", "true") === "true";
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (event: string, data: Record<string, unknown>) => console.log(JSON.stringify({ event, ...data }));

const { run } = await hub.runs.post(
  {
    title: env("TITLE", "Summarize the AgentHub README"),
    description: "Three bullet points, plain text.",
    reward: BigInt(env("REWARD", "5000000")),
    deadline: { inSeconds: 3 * 24 * 3600 },
    maxRevisions: 1,
  },
  poster,
);
log("posted", { runId: run.bountyId, state: run.state, reward: run.reward, fee: run.fee });

let revised = false;
for (;;) {
  await sleep(pollMs);
  const current = await hub.runs.get(run.bountyId).catch((error) => {
    if (isAgentHubError(error) && error.retryable) return undefined; // rate limited or busy: poll again later
    throw error;
  });
  if (!current) continue;
  if (current.state !== "SUBMITTED") continue;
  if (revise && !revised) {
    await hub.runs.requestRevision(run.bountyId, "Please make it shorter.", poster);
    revised = true;
    log("revision-requested", { runId: run.bountyId });
    continue;
  }
  const approved = await hub.runs.approve(run.bountyId, poster);
  log("approved", { runId: run.bountyId, state: approved.run.state, txHash: approved.txHash });
  break;
}

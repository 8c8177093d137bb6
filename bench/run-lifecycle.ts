// Benchmark: N full run lifecycles over HTTP on a fresh local stack (chain, Postgres, indexer, relayer, API).
// Per step: HTTP latency of the request alone (signing and nonce fetching happen before the clock starts) and
// gas used by its escrow transaction, read from the receipt. Writes bench/results/run-lifecycle.md.
//
//   pnpm exec tsx bench/run-lifecycle.ts [N=20]
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import { repoRoot } from "../scripts/lib/chain.ts";
import { startBenchStack } from "./lib/stack.ts";

const N = Number(process.argv[2] ?? process.env.BENCH_RUNS ?? 20);
// Each request carries its own X-Forwarded-For (as behind a load balancer), so rate limits do not bind.
const bench = await startBenchStack("lifecycle", { TRUST_PROXY: "1", LOG_LEVEL: "warn" });
const { api, db, publicClient } = await import("../test/support/stack.ts");
const { signedAction, stakedAgent } = await import("../test/support/agents.ts");
const { chainTime, escrowAddress, newPoster, rewardsPaidOut, signConsent, signFundingAuthorization } = await import(
  "../test/support/runs.ts"
);
const { RunEscrowAbi } = await import("@agenthub/common/generated/abis");
const { deliverableHashOf } = await import("@agenthub/sdk/protocol");

type Hex = `0x${string}`;
const STEPS = ["create", "fund", "claim", "start", "submit", "request-revision", "resubmit", "approve"] as const;
type Step = (typeof STEPS)[number];
const latency: Record<Step, number[]> = Object.fromEntries(STEPS.map((s) => [s, []])) as never;
const gas: Record<Step, bigint[]> = Object.fromEntries(STEPS.map((s) => [s, []])) as never;
/** The API's reward-payout job's payRewards transactions for the bench's agent (the approvals credit, the job pays). */
const payouts: bigint[] = [];
const lifecycles: number[] = [];
const wallClock: number[] = [];

async function timed(stepName: Step, method: string, path: string, body: unknown, expect: number) {
  const started = performance.now();
  const res = await api(method, path, { body });
  const ms = performance.now() - started;
  if (res.status !== expect) throw new Error(`${stepName}: ${res.status} ${JSON.stringify(res.body)}`);
  latency[stepName].push(ms);
  const hash = res.body.txHash as Hex | null;
  if (hash) gas[stepName].push((await publicClient.getTransactionReceipt({ hash })).gasUsed);
  return { ms, body: res.body };
}

try {
  const poster = await newPoster(BigInt(N) * 20_000_000n);
  const agent = await stakedAgent();
  const fromBlock = await publicClient.getBlockNumber();
  console.log(`[bench] poster ${poster.address}, agent ${agent.agentId}; ${N} lifecycles`);
  for (let i = 0; i < N; i++) {
    const startedAt = performance.now();
    let total = 0;
    const reward = 10_000_000n + BigInt(i);
    const deadline = new Date(Number((await chainTime()) + 3n * 86_400n) * 1000).toISOString();
    const create = await timed(
      "create",
      "POST",
      "/api/runs",
      {
        posterAddress: poster.address,
        title: `Bench run ${i}`,
        description: "Benchmark lifecycle",
        reward: reward.toString(),
        deadline,
        maxRevisions: 1,
        ...(await signedAction(poster.key, "create-run", "run", "new")),
      },
      201,
    );
    total += create.ms;
    const id: number = create.body.run.bountyId;
    const authorization = await signFundingAuthorization(poster.key, create.body.run);
    // The signed request plus the party's on-chain consent (both signed before the clock starts).
    const signed = (key: Hex, action: string) => signedAction(key, action, "run", id);
    type ConsentAction = Parameters<typeof signConsent>[2];
    const consented = async (key: Hex, action: string, consent: ConsentAction, extra = {}) => ({
      ...(await signed(key, action)),
      consent: await signConsent(key, id, consent, extra),
    });
    total += (
      await timed(
        "fund",
        "POST",
        `/api/runs/${id}/fund`,
        { ...(await signed(poster.key, "fund-run")), authorization },
        200,
      )
    ).ms;
    total += (
      await timed(
        "claim",
        "POST",
        `/api/runs/${id}/claim`,
        {
          agentId: agent.agentId,
          walletAddress: agent.owner.address,
          ...(await consented(agent.owner.key, "claim-run", "claim", { agentId: agent.agentId })),
        },
        200,
      )
    ).ms;
    total += (
      await timed("start", "POST", `/api/runs/${id}/start`, await consented(agent.owner.key, "start-run", "start"), 200)
    ).ms;
    total += (
      await timed(
        "submit",
        "POST",
        `/api/runs/${id}/submit`,
        {
          ...(await consented(agent.owner.key, "submit-run", "submit", {
            deliverableHash: deliverableHashOf({ run: id, answer: "first" }),
          })),
          deliverable: { run: id, answer: "first" },
        },
        200,
      )
    ).ms;
    total += (
      await timed(
        "request-revision",
        "POST",
        `/api/runs/${id}/request-revision`,
        { ...(await consented(poster.key, "request-revision", "requestRevision")), feedback: "one more pass" },
        200,
      )
    ).ms;
    total += (
      await timed(
        "resubmit",
        "POST",
        `/api/runs/${id}/submit`,
        {
          ...(await consented(agent.owner.key, "submit-run", "submit", {
            deliverableHash: deliverableHashOf({ run: id, answer: "second" }),
          })),
          deliverable: { run: id, answer: "second" },
        },
        200,
      )
    ).ms;
    const approved = await timed(
      "approve",
      "POST",
      `/api/runs/${id}/approve`,
      await consented(poster.key, "approve-run", "approve"),
      200,
    );
    total += approved.ms;
    if (approved.body.run.state !== "APPROVED") throw new Error(`run ${id} ended ${approved.body.run.state}`);
    lifecycles.push(total);
    wallClock.push(performance.now() - startedAt);
    process.stdout.write(`  lifecycle ${i + 1}/${N}: ${total.toFixed(0)} ms HTTP\n`);
  }
  // Every approval's reward reaches the owner through the job (REWARD_PAYOUT_INTERVAL_SECONDS apart, each payout
  // covering every run approved since the last): their gas, shared by the runs they paid.
  await rewardsPaidOut(agent.agentId, 60_000);
  const paid = await publicClient.getContractEvents({
    address: escrowAddress,
    abi: RunEscrowAbi,
    eventName: "RewardsPaid",
    args: { agentId: BigInt(agent.agentId) },
    fromBlock,
  });
  for (const hash of new Set(paid.map((e) => e.transactionHash))) {
    payouts.push((await publicClient.getTransactionReceipt({ hash })).gasUsed);
  }
} finally {
  await db.end().catch(() => {});
  await bench.stop();
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const fmt = (ms: number) => ms.toFixed(0);
const gasStats = (values: bigint[]) => {
  if (!values.length) return { min: "-", avg: "-", max: "-" };
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const avg = values.reduce((a, b) => a + b, 0n) / BigInt(values.length);
  return {
    min: sorted[0]!.toLocaleString("en"),
    avg: avg.toLocaleString("en"),
    max: sorted.at(-1)!.toLocaleString("en"),
  };
};

// The contract suite's gas report for the same functions (median over the contract tests), for comparison.
// Every step after the funding is relayed with its party's on-chain consent: the escrow's `...BySig` functions.
const escrowFunction: Partial<Record<Step, string>> = {
  fund: "createRunWithAuthorization",
  claim: "claimBySig",
  start: "startBySig",
  submit: "submitBySig",
  "request-revision": "requestRevisionBySig",
  resubmit: "submitBySig",
  approve: "approveBySig",
};
const reportMedian = (fn: string | undefined): string => {
  if (!fn) return "-";
  try {
    const report = readFileSync(join(repoRoot, "contracts", "gas-report.md"), "utf8");
    const section = report.slice(report.indexOf("### RunEscrow"));
    const row = section.split("\n").find((l) => l.startsWith(`| \`${fn}\` |`));
    return row?.split("|")[5]?.trim() ?? "-";
  } catch {
    return "-";
  }
};

const rows = STEPS.map((s) => {
  const g = gasStats(gas[s]);
  return `| ${s} | ${fmt(pct(latency[s], 50))} | ${fmt(pct(latency[s], 95))} | ${fmt(Math.max(...latency[s]))} | ${escrowFunction[s] ?? "(no transaction)"} | ${g.min} | ${g.avg} | ${g.max} | ${reportMedian(escrowFunction[s])} |`;
});
const payoutGas = payouts.reduce((a, b) => a + b, 0n);
const payoutShare = payoutGas / BigInt(N);
const payoutStats = gasStats(payouts);
rows.push(
  `| payout (the API's job, ${payouts.length} for ${N} runs) | - | - | - | payRewards | ${payoutStats.min} | ${payoutStats.avg} | ${payoutStats.max} | ${reportMedian("payRewards")} |`,
);
const totalGas =
  STEPS.reduce(
    (sum, s) => sum + (gas[s].length ? gas[s].reduce((a, b) => a + b, 0n) / BigInt(gas[s].length) : 0n),
    0n,
  ) + payoutShare;
const report = `# Run lifecycle benchmark

${N} full lifecycles over HTTP on one local stack (\`pnpm exec tsx bench/run-lifecycle.ts ${N}\`), run ${new Date().toISOString()} on ${cpus().length} CPU(s) (${cpus()[0]?.model ?? "unknown"}).

Each lifecycle: create (DRAFT) → fund (the poster's terms-bound EIP-3009 authorization, relayed \`createRunWithAuthorization\`) → claim → start → submit → request-revision → resubmit → approve, one poster and one staked agent, all gasless for both. A step's latency is its HTTP request alone (the SIWE message and funding authorization are signed before the clock starts): signature and nonce check, per-run lease, the relayer's simulate + send + receipt (Hardhat automine), and the wait until the indexer (Ponder, 200 ms polling on a local chain) shows the transaction's events. Gas is each step's transaction receipt \`gasUsed\` (includes the 21,000 base and calldata); the last column is the median of the contract test suite's gas report (\`contracts/gas-report.md\`) for the same function.

| Step | p50 ms | p95 ms | max ms | Escrow call | gas min | gas avg | gas max | gas-report median |
|---|---:|---:|---:|---|---:|---:|---:|---:|
${rows.join("\n")}

| Whole lifecycle (8 requests) | p50 ms | p95 ms | max ms |
|---|---:|---:|---:|
| Sum of HTTP latencies | ${fmt(pct(lifecycles, 50))} | ${fmt(pct(lifecycles, 95))} | ${fmt(Math.max(...lifecycles))} |
| Wall clock incl. client signing and nonce fetches | ${fmt(pct(wallClock, 50))} | ${fmt(pct(wallClock, 95))} | ${fmt(Math.max(...wallClock))} |

Gas for one lifecycle (7 transactions, averages, plus its share of the payouts: ${payoutShare.toLocaleString("en")}): ${totalGas.toLocaleString("en")}; the relayer pays it, neither poster nor agent holds ETH.
An approval credits the agent; the API's reward-payout job (every \`REWARD_PAYOUT_INTERVAL_SECONDS\`, 10 s here) pays each
agent's owner once for every run approved since its last tick, so a busy agent's runs share one payout.
The contract suite measures the same relayed lifecycle with one revision round in steady state
(\`contracts/gas-report.md\`, "lifecycle: ... with one revision round"); this average also carries each run's
first-use costs over HTTP (fresh run words and consent nonce slots, a payee's first balance).
`;
mkdirSync(join(repoRoot, "bench", "results"), { recursive: true });
writeFileSync(join(repoRoot, "bench", "results", "run-lifecycle.md"), report);
console.log(`\n${report}`);
process.exit(0);

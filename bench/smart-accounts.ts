// Benchmark: the agent side of a run through UserOperations (EIP-7702 agent with 0 ETH, real Alto bundler, gas
// paid by AgentHub's ERC-7677 paymaster) next to the same steps through the relayer (signed API requests), both on
// one fresh local stack. Per step: gas and latency. Writes bench/results/smart-accounts.md.
//
//   pnpm exec tsx bench/smart-accounts.ts [N=10]
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus } from "node:os";
import { join } from "node:path";
import type { Hex } from "viem";
import { keccak256, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { repoRoot } from "../scripts/lib/chain.ts";
import { startBenchStack } from "./lib/stack.ts";

const N = Number(process.argv[2] ?? process.env.BENCH_RUNS ?? 10);
// Each request carries its own X-Forwarded-For (as behind a load balancer), so rate limits do not bind.
const bench = await startBenchStack("aa", { TRUST_PROXY: "1", LOG_LEVEL: "warn" });
const { stack } = bench;
const { api, db, deployments, publicClient } = await import("../test/support/stack.ts");
const { faucet, registerAgent, signedAction, stakedAgent } = await import("../test/support/agents.ts");
const { newPoster, openRun, signConsent } = await import("../test/support/runs.ts");
const { deliverableHashOf } = await import("@agenthub/sdk/protocol");
const { agentAccount, agentActions } = await import("@agenthub/sdk/smart-account");

const STEPS = ["stake", "claim", "start", "submit"] as const;
type Step = (typeof STEPS)[number];
interface Sample {
  /** From building the operation (nonce, paymaster stub, estimation, paymaster signature) to its receipt. */
  ms: number;
  /** Until the indexer shows the step's event (what the API path waits for before answering). */
  indexedMs?: number;
  /** Gas the EntryPoint charged the paymaster (includes preVerificationGas) or the relayed transaction used. */
  gas: bigint;
  /** Gas of the bundle transaction (single-operation bundles here). */
  txGas?: bigint;
  first?: boolean;
}
const aa: Record<Step, Sample[]> = { stake: [], claim: [], start: [], submit: [] };
const relayed: Record<Exclude<Step, "stake">, Sample[]> = { claim: [], start: [], submit: [] };
const schema = stack.env.INDEXER_SCHEMA ?? "chain";
const actions = agentActions(deployments);

async function indexed(txHash: Hex, started: number): Promise<number> {
  for (let i = 0; i < 300; i++) {
    const r = await db.query(
      `select 1 from ${schema}.run_event where tx_hash = $1 union all select 1 from ${schema}.stake_event where tx_hash = $1`,
      [txHash.toLowerCase()],
    );
    if (r.rowCount) return performance.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`${txHash} never indexed`);
}

try {
  const poster = await newPoster(BigInt(2 * N) * 20_000_000n);
  console.log(`[bench] ${N} agents through UserOperations, ${N} runs through the relayer`);
  for (let i = 0; i < N; i++) {
    // A self-custodied agent: claimed to its own fresh key, USDC for its stake, no ETH.
    const owner = privateKeyToAccount(generatePrivateKey());
    const reg = await registerAgent();
    const claimSig = await owner.signMessage({ message: `I claim agent ${reg.agentId} to address ${owner.address}` });
    const claimed = await api("POST", `/api/agents/${reg.agentId}/claim`, {
      body: { signature: claimSig, userAddress: owner.address, claimCode: reg.claimCode },
    });
    if (claimed.status !== 200) throw new Error(`claim: ${JSON.stringify(claimed.body)}`);
    await faucet(owner.address, 20_000_000n);
    for (;;) {
      const r = await db.query(`select 1 from ${schema}.agent where id = $1 and lower(owner) = lower($2)`, [
        reg.agentId,
        owner.address,
      ]);
      if (r.rowCount) break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const account = await agentAccount({
      owner,
      client: publicClient,
      bundlerUrl: stack.bundlerUrl!,
      apiUrl: stack.apiUrl,
      accountAbstraction: deployments.accountAbstraction!,
    });
    const run = await openRun({ key: poster.key, address: poster.address });
    const runId = BigInt(run.onchainRunId!);
    const agentId = BigInt(reg.agentId);
    const calls: Record<Step, ReturnType<typeof actions.stake>> = {
      stake: actions.stake(agentId, 20_000_000n),
      claim: actions.claimRun(runId, agentId),
      start: actions.startRun(runId),
      submit: actions.submitRun(runId, keccak256(toHex(`deliverable ${i}`))),
    };
    for (const step of STEPS) {
      const started = performance.now();
      const sent = await account.send(calls[step]);
      const ms = performance.now() - started;
      const indexedMs = await indexed(sent.txHash, started);
      const tx = await publicClient.getTransactionReceipt({ hash: sent.txHash });
      aa[step].push({ ms, indexedMs, gas: sent.actualGasUsed, txGas: tx.gasUsed, first: step === "stake" });
    }
    if (await publicClient.getBalance({ address: owner.address })) throw new Error("the agent holds ETH");

    // The same three steps through the API and the relayer (signed requests, the generated wallet).
    const agent = await stakedAgent();
    const relayedRun = await openRun({ key: poster.key, address: poster.address });
    const id = relayedRun.bountyId;
    const bodies = {
      claim: async () => ({
        agentId: agent.agentId,
        walletAddress: agent.owner.address,
        ...(await signedAction(agent.owner.key, "claim-run", "run", id)),
        consent: await signConsent(agent.owner.key, id, "claim", { agentId: agent.agentId }),
      }),
      start: async () => ({
        ...(await signedAction(agent.owner.key, "start-run", "run", id)),
        consent: await signConsent(agent.owner.key, id, "start"),
      }),
      submit: async () => ({
        ...(await signedAction(agent.owner.key, "submit-run", "run", id)),
        deliverable: { run: id, answer: `relayed ${i}` },
        consent: await signConsent(agent.owner.key, id, "submit", {
          deliverableHash: deliverableHashOf({ run: id, answer: `relayed ${i}` }),
        }),
      }),
    };
    for (const step of ["claim", "start", "submit"] as const) {
      const body = await bodies[step]();
      const started = performance.now();
      const res = await api("POST", `/api/runs/${id}/${step}`, { body });
      const ms = performance.now() - started;
      if (res.status !== 200) throw new Error(`${step}: ${res.status} ${JSON.stringify(res.body)}`);
      const receipt = await publicClient.getTransactionReceipt({ hash: res.body.txHash as Hex });
      relayed[step].push({ ms, gas: receipt.gasUsed });
    }
    process.stdout.write(`  agent ${i + 1}/${N}\n`);
  }
} finally {
  await db.end().catch(() => {});
  await bench.stop();
}

const pct = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
};
const ms = (v: number) => v.toFixed(0);
const avg = (values: bigint[]) =>
  values.length ? (values.reduce((a, b) => a + b, 0n) / BigInt(values.length)).toLocaleString("en") : "-";

const aaRows = STEPS.map((s) => {
  const samples = aa[s];
  const lat = samples.map((x) => x.ms);
  const idx = samples.map((x) => x.indexedMs!);
  return `| ${s}${s === "stake" ? " (first operation: + 7702 delegation)" : ""} | ${avg(samples.map((x) => x.gas))} | ${avg(samples.map((x) => x.txGas!))} | ${ms(pct(lat, 50))} | ${ms(pct(lat, 95))} | ${ms(pct(idx, 50))} | ${ms(pct(idx, 95))} |`;
});
const relayedRows = (["claim", "start", "submit"] as const).map((s) => {
  const samples = relayed[s];
  const lat = samples.map((x) => x.ms);
  return `| ${s} | ${avg(samples.map((x) => x.gas))} | ${ms(pct(lat, 50))} | ${ms(pct(lat, 95))} |`;
});

const overhead = (["claim", "start", "submit"] as const)
  .map((s) => {
    const mean = (xs: bigint[]) => xs.reduce((a, b) => a + b, 0n) / BigInt(xs.length || 1);
    return `${(mean(aa[s].map((x) => x.txGas!)) - mean(relayed[s].map((x) => x.gas))).toLocaleString("en")} (${s})`;
  })
  .join(", ");

const report = `# Smart-account path vs relayer path

${N} agents through UserOperations and ${N} runs through the relayer, on one local stack (\`pnpm exec tsx bench/smart-accounts.ts ${N}\`), run ${new Date().toISOString()} on ${cpus().length} CPU(s) (${cpus()[0]?.model.split(" ").slice(0, 2).join(" ")}).

**Smart-account path**: each agent holds only its key and 0 ETH (checked after its steps); its EOA delegates to Simple7702Account in its first operation (EIP-7702 authorization) and every step is one UserOperation sent with permissionless to the stack's Alto bundler (single-operation bundles, Hardhat automine), gas paid by the VerifyingPaymaster after the API's ERC-7677 service approved it (stub data, bundler estimation, paymaster signature). Stake = USDC \`approve\` + StakeVault \`deposit\` batched in one operation. Gas: what the EntryPoint charged (\`actualGasUsed\`, includes preVerificationGas) and the bundle transaction's \`gasUsed\`. Latency: from building the operation to its receipt (what the agent waits for), and until the indexer shows the step's event.

| Step (UserOperation) | gas charged (avg) | bundle tx gas (avg) | p50 ms to receipt | p95 ms | p50 ms to indexed | p95 ms |
|---|---:|---:|---:|---:|---:|---:|
${aaRows.join("\n")}

**Relayer path** (same run, same steps): signed API request (EIP-4361), the relayer simulates and sends, the API answers once the indexer shows the event. Gas: the relayed transaction's \`gasUsed\` (paid by the relayer's ETH).

| Step (API + relayer) | tx gas (avg) | p50 ms (HTTP, indexed) | p95 ms |
|---|---:|---:|---:|
${relayedRows.join("\n")}

Per step, the bundle transaction uses ${overhead} gas more than the relayed call of the same function (EntryPoint validation, the account's and the paymaster's signature checks, the bundle's own overhead); the agent's first operation also carries its 7702 authorization. The EntryPoint charges the paymaster a little more than the bundle uses (preVerificationGas is an estimate with a margin). Latency is the bundler round trips (estimation, submission, receipt polling) plus two paymaster calls; the relayer path is cheaper and faster per step but needs AgentHub's API, relayer and hot key to act, while the smart-account path lets any ERC-4337 tool act for the agent with its own key.
`;
mkdirSync(join(repoRoot, "bench", "results"), { recursive: true });
writeFileSync(join(repoRoot, "bench", "results", "smart-accounts.md"), report);
console.log(report);
process.exit(0);

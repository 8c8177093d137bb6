// Benchmark: indexer lag as an API client sees it (issue 15 goal 5). On a fresh local stack, an agent's owner
// deposits stake directly on chain N times; for each deposit the clock starts when the transaction's receipt is
// available (the block is mined: Hardhat automine) and stops when GET /api/agents/:id shows the new stake.
// Prints and writes bench/results/indexer-lag.md (p50/p95/p99/max).
//
//   pnpm exec tsx bench/indexer-lag.ts [N=100]      (BENCH_LAGS=1 also prints each deposit's lag, in order: a
//                                                   periodic tail shows there)
import { machineLine, writeResults } from "./lib/results.ts";
import { startBenchStack } from "./lib/stack.ts";

const N = Number(process.argv[2] ?? 100);
const bench = await startBenchStack("lag", {
  LOG_LEVEL: "warn",
  RATE_LIMIT_MULTIPLIER: "1000000",
  ...JSON.parse(process.env.BENCH_API_ENV ?? "{}"),
});
const { api, deployments, publicClient, chain } = await import("../test/support/stack.ts");
const { stakedAgent, faucet, walletFromKey, approveUsdc } = await import("../test/support/agents.ts");
const { StakeVaultAbi } = await import("@agenthub/common/generated/abis");

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

try {
  const agent = await stakedAgent();
  const unit = 1_000_000n;
  await faucet(agent.walletAddress, unit * BigInt(N), 10n ** 17n);
  await approveUsdc(agent.agentKey, deployments.contracts.StakeVault.address, unit * BigInt(N));
  const { account, wallet } = walletFromKey(agent.agentKey);
  const staked = async () => BigInt((await api("GET", `/api/agents/${agent.agentId}`)).body.stakedAmount);
  let expected = await staked();
  const lags: number[] = [];
  for (let i = 0; i < N; i++) {
    const hash = await wallet.writeContract({
      address: deployments.contracts.StakeVault.address,
      abi: StakeVaultAbi,
      functionName: "deposit",
      args: [BigInt(agent.agentId), unit],
      account,
      chain,
    });
    await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 5 });
    const mined = performance.now();
    expected += unit;
    while ((await staked()) !== expected) {
      if (performance.now() - mined > 10_000) throw new Error(`deposit ${i} not reflected after 10 s`);
      await new Promise((r) => setTimeout(r, 5));
    }
    lags.push(performance.now() - mined);
  }
  if (process.env.BENCH_LAGS) console.log(`lags ${lags.map((l) => l.toFixed(0)).join(" ")}`);
  const line = `| ${N} | ${pct(lags, 50).toFixed(0)} | ${pct(lags, 95).toFixed(0)} | ${pct(lags, 99).toFixed(0)} | ${Math.max(...lags).toFixed(0)} |`;
  const table = ["| deposits | p50 ms | p95 ms | p99 ms | max ms |", "|---:|---:|---:|---:|---:|", line].join("\n");
  console.log(table);
  writeResults(
    "indexer-lag",
    "Indexer lag",
    `\`pnpm exec tsx bench/indexer-lag.ts ${N}\`, ${new Date().toISOString().slice(0, 16)}Z, ${machineLine()} at the end (other work shares the machine).
From a mined block (the deposit's receipt is available; Hardhat automine, one block per transaction) to
\`GET /api/agents/:id\` showing the new stake (polled every 5 ms): Ponder's polling interval (100 ms locally, see
indexer/ponder.config.ts), its processing and commit, and the API's read (answered from the read cache until the
commit's notification empties it). Target: p95 < 300 ms.

${table}`,
  );
} finally {
  await bench.stop();
}

// Where the gas of createRun, approve and createRunWithAuthorization goes, from the node's own opcode trace
// (debug_traceTransaction structLogs): per call depth and opcode (depth 1 = RunEscrow, 2 = the token, the vault,
// the identity), and the ordered storage, call, log and transient operations with their costs. Steady state as in
// test/contracts/core-gas.test.ts. Run: pnpm exec hardhat test mocha bench/gas-breakdown.ts
// Numbers quoted in bench/results/gas.md.
import { network } from "hardhat";
import { describe, it } from "mocha";
import {
  bytes32,
  createFundedRun,
  DAY,
  deployCore,
  feeOf,
  IPFS_URI,
  MIN_STAKE,
  mintAgent,
  signFunding,
  stakeAgent,
  wait,
} from "../test/contracts/fixtures.ts";

interface StructLog {
  op: string;
  depth: number;
  gas: number;
  gasCost: number;
}
type Provider = { request: (args: { method: string; params: unknown[] }) => Promise<unknown> };
const CALLS = new Set(["CALL", "STATICCALL", "DELEGATECALL"]);
const LISTED = new Set(["SLOAD", "SSTORE", "CALL", "STATICCALL", "LOG1", "LOG2", "LOG3", "LOG4", "TLOAD", "TSTORE"]);

async function trace(provider: Provider, hash: string, label: string) {
  const t = (await provider.request({
    method: "debug_traceTransaction",
    params: [hash, { disableStorage: true, disableMemory: true, disableStack: true }],
  })) as { gas: number; structLogs: StructLog[] };
  const logs = t.structLogs;
  const byOp: Record<string, number> = {};
  const byDepth: Record<number, number> = {};
  for (let i = 0; i < logs.length; i++) {
    const l = logs[i]!;
    let cost = l.gasCost;
    // A call's gasCost includes the gas it forwards: count only what the caller pays (access + base).
    if (CALLS.has(l.op)) {
      let j = i + 1;
      while (j < logs.length && logs[j]!.depth > l.depth) j++;
      const entered = logs[i + 1] && logs[i + 1]!.depth > l.depth;
      const inner = entered ? logs[i + 1]!.gas - (logs[j - 1]!.gas - logs[j - 1]!.gasCost) : 0;
      cost = j < logs.length ? l.gas - logs[j]!.gas - inner : cost;
    }
    byOp[`${l.depth}:${l.op}`] = (byOp[`${l.depth}:${l.op}`] ?? 0) + cost;
    byDepth[l.depth] = (byDepth[l.depth] ?? 0) + cost;
  }
  console.log(
    `== ${label}: gasUsed ${t.gas} (the trace covers execution; 21,000 + calldata and the refund make up the rest)`,
  );
  const top = Object.entries(byOp).sort((a, b) => b[1] - a[1]);
  console.log(
    top
      .slice(0, 24)
      .map(([k, v]) => `${k}=${v}`)
      .join("  "),
  );
  console.log("by depth", JSON.stringify(byDepth));
  console.log(
    logs
      .filter((l) => LISTED.has(l.op))
      .map((l) => `${l.depth}:${l.op}:${l.gasCost > 30_000 ? "fwd" : l.gasCost}`)
      .join(" "),
  );
}

describe("gas breakdown", () => {
  it("traces createRun, approve and createRunWithAuthorization in steady state", async () => {
    const conn = await network.create();
    const core = await conn.networkHelpers.loadFixture(deployCore);
    const { escrow, usdc, publicClient, wallets } = core;
    const { poster, agentOwner, treasury } = wallets;
    const agent0 = await mintAgent(core, agentOwner.account.address);
    await stakeAgent(core, agent0, agentOwner.account.address, 2n * MIN_STAKE);
    const warm = await createFundedRun(core, poster.account.address, 1_000_000n);
    await wait(publicClient, escrow.write.claim([warm, agent0], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.submit([warm, bytes32("w")], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.approve([warm], { account: poster.account }));
    await wait(publicClient, escrow.write.sweepFees({ account: treasury.account }));
    await createFundedRun(core, poster.account.address, 1_000_000n);
    const reward = 10_000_000n;
    const amount = reward + feeOf(reward);
    const now = (await publicClient.getBlock()).timestamp;
    await wait(publicClient, usdc.write.mint([poster.account.address, 10n * amount], { account: poster.account }));
    await wait(publicClient, usdc.write.approve([escrow.address, amount], { account: poster.account }));
    const h1 = await escrow.write.createRun([reward, now + 30n * DAY, 2, 0n, IPFS_URI], {
      account: poster.account,
    });
    const r1 = await publicClient.waitForTransactionReceipt({ hash: h1 });
    const runId = await escrow.read.runCount();
    await trace(conn.provider as unknown as Provider, h1, `createRun ${r1.gasUsed}`);
    await wait(publicClient, escrow.write.claim([runId, agent0], { account: agentOwner.account }));
    await wait(publicClient, escrow.write.submit([runId, bytes32("d1")], { account: agentOwner.account }));
    const h2 = await escrow.write.approve([runId], { account: poster.account });
    const r2 = await publicClient.waitForTransactionReceipt({ hash: h2 });
    await trace(conn.provider as unknown as Provider, h2, `approve ${r2.gasUsed}`);
    const terms = { reward, deadline: now + 30n * DAY, maxRevisions: 2, cover: 0n, metadataUri: IPFS_URI };
    const auth = await signFunding(core, poster, terms);
    const h3 = await escrow.write.createRunWithAuthorization(
      [poster.account.address, reward, terms.deadline, 2, 0n, IPFS_URI, auth.validBefore, auth.signature],
      { account: wallets.relayer.account },
    );
    const r3 = await publicClient.waitForTransactionReceipt({ hash: h3 });
    await trace(conn.provider as unknown as Provider, h3, `createRunWithAuthorization ${r3.gasUsed}`);
  });
});

// The paymaster's call policy (api/src/paymaster/calls.ts): which account calls are sponsored agent actions.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Deployments } from "@agenthub/common";
import { RunEscrowAbi, StakeVaultAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Address, encodeFunctionData, type Hex, zeroHash } from "viem";
import { accountAbi, accountCalls, allowedCalls, classifyCalls, PolicyRefusal } from "../src/paymaster/calls.ts";

const at = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
const contract = (n: number) => ({ address: at(n), startBlock: 1 });
const deployments = {
  usdc: { address: at(1), name: "USDC", version: "2", decimals: 6 },
  contracts: {
    AgentIdentity: contract(2),
    StakeVault: contract(3),
    RunEscrow: contract(4),
    InsurancePool: contract(5),
    AgentHubToken: contract(6),
    AgentHubTimelock: contract(7),
    AgentHubGovernor: contract(8),
  },
} as unknown as Deployments;
const rules = allowedCalls(deployments);
const vault = at(3);
const escrow = at(4);

const execute = (target: Address, data: Hex, value = 0n) =>
  encodeFunctionData({ abi: accountAbi, functionName: "execute", args: [target, value, data] });
const batch = (...calls: { target: Address; data: Hex; value?: bigint }[]) =>
  encodeFunctionData({
    abi: accountAbi,
    functionName: "executeBatch",
    args: [calls.map((c) => ({ target: c.target, value: c.value ?? 0n, data: c.data }))],
  });
const approve = (spender: Address) =>
  encodeFunctionData({ abi: TestUSDCAbi, functionName: "approve", args: [spender, 20_000_000n] });
const deposit = encodeFunctionData({ abi: StakeVaultAbi, functionName: "deposit", args: [5n, 20_000_000n] });

const refusal = (fn: () => unknown, code: string) =>
  assert.throws(fn, (e: unknown) => e instanceof PolicyRefusal && e.code === code);

describe("paymaster call policy", () => {
  it("classifies a batched approve + deposit and the run actions", () => {
    const calls = accountCalls(batch({ target: at(1), data: approve(vault) }, { target: vault, data: deposit }));
    assert.deepEqual(classifyCalls(calls, rules), [{ kind: "none" }, { kind: "agent", agentId: 5n }]);
    const claim = encodeFunctionData({ abi: RunEscrowAbi, functionName: "claim", args: [9n, 5n] });
    assert.deepEqual(classifyCalls(accountCalls(execute(escrow, claim)), rules), [{ kind: "agent", agentId: 5n }]);
    const submit = encodeFunctionData({ abi: RunEscrowAbi, functionName: "submit", args: [9n, zeroHash] });
    assert.deepEqual(classifyCalls(accountCalls(execute(escrow, submit)), rules), [{ kind: "run", runId: 9n }]);
  });

  it("refuses foreign targets, foreign spenders, other functions, ETH and non-account calls", () => {
    refusal(() => classifyCalls(accountCalls(execute(at(99), deposit)), rules), "CALL_NOT_ALLOWED");
    refusal(() => classifyCalls(accountCalls(execute(at(1), approve(at(99)))), rules), "CALL_NOT_ALLOWED");
    const transfer = encodeFunctionData({ abi: TestUSDCAbi, functionName: "transfer", args: [at(99), 1n] });
    refusal(() => classifyCalls(accountCalls(execute(at(1), transfer)), rules), "CALL_NOT_ALLOWED");
    const approvePoster = encodeFunctionData({ abi: RunEscrowAbi, functionName: "approve", args: [9n] });
    refusal(() => classifyCalls(accountCalls(execute(escrow, approvePoster)), rules), "CALL_NOT_ALLOWED");
    refusal(() => classifyCalls(accountCalls(execute(vault, deposit, 1n)), rules), "CALL_NOT_ALLOWED");
    refusal(
      () => classifyCalls(accountCalls(batch({ target: vault, data: deposit }, { target: at(99), data: "0x" })), rules),
      "CALL_NOT_ALLOWED",
    );
    refusal(() => accountCalls(deposit), "CALL_NOT_ALLOWED");
    refusal(() => accountCalls(batch()), "CALL_NOT_ALLOWED");
  });
});

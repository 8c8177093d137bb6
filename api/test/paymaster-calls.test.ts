// The paymaster's call policy (api/src/paymaster/calls.ts): which account calls are sponsored agent actions.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { Deployments } from "@agenthub/common";
import { RunEscrowAbi, StakeVaultAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Address, encodeFunctionData, type Hex, zeroHash } from "viem";
import {
  ACCOUNT_CALL_OVERHEAD_GAS,
  accountAbi,
  accountCalls,
  allowedCalls,
  callGasCap,
  classifyCalls,
  PolicyRefusal,
} from "../src/paymaster/calls.ts";
import { preVerificationGasBound, type UserOperation } from "../src/paymaster/user-operation.ts";

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
    const staking = classifyCalls(calls, rules);
    assert.deepEqual(staking, [
      { kind: "none", gas: 60_000n },
      { kind: "agent", agentId: 5n, stakes: 20_000_000n, gas: 150_000n },
    ]);
    assert.equal(callGasCap(staking), 60_000n + 150_000n + ACCOUNT_CALL_OVERHEAD_GAS);
    const claim = encodeFunctionData({ abi: RunEscrowAbi, functionName: "claim", args: [9n, 5n] });
    assert.deepEqual(classifyCalls(accountCalls(execute(escrow, claim)), rules), [
      { kind: "agent", agentId: 5n, gas: 150_000n },
    ]);
    const submit = encodeFunctionData({ abi: RunEscrowAbi, functionName: "submit", args: [9n, zeroHash] });
    assert.deepEqual(classifyCalls(accountCalls(execute(escrow, submit)), rules), [
      { kind: "run", runId: 9n, gas: 120_000n },
    ]);
  });

  it("bounds preVerificationGas by the operation's size: at least the bundler's estimate, far below an inflated one", () => {
    const stake = batch({ target: at(1), data: approve(vault) }, { target: vault, data: deposit });
    const op = {
      sender: at(77),
      nonce: 0n,
      callData: stake,
      callGasLimit: 126_186n,
      verificationGasLimit: 49_783n,
      preVerificationGas: 0n,
      maxFeePerGas: 1_000_000_000n,
      maxPriorityFeePerGas: 1_000_000n,
      paymasterVerificationGasLimit: 0n,
      paymasterPostOpGasLimit: 0n,
    } as UserOperation;
    const auth = { address: at(2), chainId: "0x1", nonce: "0x0", r: "0x1", s: "0x1", yParity: "0x0" } as const;
    // Alto 0.0.20 on the local stack estimated 51,769 gas for a single call and 81,694 for this batch carrying an
    // EIP-7702 authorization (test/e2e/smart-accounts.test.ts, measured 2026-11-27).
    const single = { ...op, callData: execute(vault, deposit) };
    assert.ok(preVerificationGasBound(single) >= 51_769n, `${preVerificationGasBound(single)}`);
    assert.ok(preVerificationGasBound(single) < 70_000n, `${preVerificationGasBound(single)}`);
    const withAuth = preVerificationGasBound({ ...op, eip7702Auth: auth });
    assert.ok(withAuth >= 81_694n && withAuth < 110_000n, `${withAuth}`);
    assert.equal(withAuth - preVerificationGasBound(op), 25_000n, "an authorization adds its 25,000");
    // Longer call data costs more, by its tokens.
    assert.ok(preVerificationGasBound({ ...op, callData: `${stake}${"ab".repeat(100)}` as Hex }) > withAuth - 25_000n);
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

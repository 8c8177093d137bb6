import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AgentIdentityAbi, RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import { decodeErrorResult, encodeErrorResult, encodeFunctionData, keccak256, toBytes, zeroAddress } from "viem";
import { allErrorsAbi, checkAllowed } from "../src/allowlist.ts";

describe("relayer allowlist", () => {
  it("accepts the functions the API relays", () => {
    const data = encodeFunctionData({ abi: AgentIdentityAbi, functionName: "mint", args: [zeroAddress, "ipfs://x"] });
    const check = checkAllowed("AgentIdentity", data);
    assert.equal(check.ok, true);
    assert.equal(check.ok && check.functionName, "mint");
  });

  it("refuses admin functions, unknown selectors and calldata aimed at the wrong contract", () => {
    const grant = encodeFunctionData({
      abi: AgentIdentityAbi,
      functionName: "grantRole",
      args: [keccak256(toBytes("X")), zeroAddress],
    });
    assert.deepEqual(checkAllowed("AgentIdentity", grant), {
      ok: false,
      reason: "AgentIdentity.grantRole is not relayed",
    });
    assert.equal(checkAllowed("AgentIdentity", "0xdeadbeef").ok, false);
    const deposit = encodeFunctionData({ abi: StakeVaultAbi, functionName: "deposit", args: [1n, 1n] });
    assert.equal(checkAllowed("StakeVault", deposit).ok, false, "plain deposit spends the relayer's own USDC");
    const approve = encodeFunctionData({ abi: RunEscrowAbi, functionName: "approve", args: [1n] });
    assert.equal(checkAllowed("AgentIdentity", approve).ok, false);
  });

  it("decodes custom errors of every contract from one ABI", () => {
    const data = encodeErrorResult({ abi: StakeVaultAbi, errorName: "StakeVaultZeroAmount" });
    assert.equal(decodeErrorResult({ abi: allErrorsAbi, data }).errorName, "StakeVaultZeroAmount");
    const escrow = encodeErrorResult({ abi: RunEscrowAbi, errorName: "RunEscrowUnknownRun", args: [7n] });
    const decoded = decodeErrorResult({ abi: allErrorsAbi, data: escrow });
    assert.equal(decoded.errorName, "RunEscrowUnknownRun");
    assert.deepEqual(decoded.args, [7n]);
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { AgentIdentityAbi, RunEscrowAbi, StakeVaultAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
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

  it("bounds arguments that could move value elsewhere", () => {
    const ctx = {
      runEscrow: "0x00000000000000000000000000000000000e5c40" as const,
      relayer: "0x0000000000000000000000000000000000000e1a" as const,
    };
    const approve = (spender: `0x${string}`) =>
      encodeFunctionData({ abi: TestUSDCAbi, functionName: "approve", args: [spender, 10n ** 12n] });
    assert.equal(checkAllowed("USDC", approve(ctx.runEscrow), ctx).ok, true);
    assert.deepEqual(checkAllowed("USDC", approve("0x00000000000000000000000000000000000a77ac"), ctx), {
      ok: false,
      reason: "USDC.approve: the relayer only gives an allowance to RunEscrow (subscription runs)",
    });
    const sponsored = (poster: `0x${string}`) =>
      encodeFunctionData({
        abi: RunEscrowAbi,
        functionName: "createSponsoredRun",
        args: [poster, 1_000_000n, 10n ** 10n, 1, "ipfs://x"],
      });
    assert.equal(checkAllowed("RunEscrow", sponsored("0x00000000000000000000000000000000000a77ac"), ctx).ok, true);
    assert.equal(checkAllowed("RunEscrow", sponsored(ctx.relayer), ctx).ok, false);
    const slash = (bps: bigint, reason: string) =>
      encodeFunctionData({ abi: StakeVaultAbi, functionName: "slash", args: [1n, bps, reason] });
    assert.equal(checkAllowed("StakeVault", slash(10_000n, "fraud"), ctx).ok, true);
    assert.equal(checkAllowed("StakeVault", slash(10_001n, "fraud"), ctx).ok, false);
    assert.equal(checkAllowed("StakeVault", slash(100n, "  "), ctx).ok, false);
    // Without a context (no addresses known) only the function list applies.
    assert.equal(checkAllowed("USDC", approve("0x00000000000000000000000000000000000a77ac")).ok, true);
    const credit = encodeFunctionData({ abi: RunEscrowAbi, functionName: "withdrawCredit", args: [ctx.relayer] });
    assert.equal(checkAllowed("RunEscrow", credit, ctx).ok, true);
  });
});

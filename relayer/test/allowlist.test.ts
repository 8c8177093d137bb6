import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_MINT_BATCH } from "@agenthub/common";
import {
  AgentIdentityAbi,
  RunEscrowAbi,
  StakeVaultAbi,
  SubscriptionVaultAbi,
  TestUSDCAbi,
} from "@agenthub/common/generated/abis";
import { decodeErrorResult, encodeErrorResult, encodeFunctionData, keccak256, toBytes, zeroAddress } from "viem";
import { allErrorsAbi, checkAllowed } from "../src/allowlist.ts";

describe("relayer allowlist", () => {
  it("accepts the functions the API relays", () => {
    const data = encodeFunctionData({ abi: AgentIdentityAbi, functionName: "mint", args: [zeroAddress, "ipfs://x"] });
    const check = checkAllowed("AgentIdentity", data);
    assert.equal(check.ok, true);
    assert.equal(check.ok && check.functionName, "mint");
  });

  it("bounds mintBatch: at most MAX_MINT_BATCH wallets, none the zero address", () => {
    const ctx = { runEscrow: zeroAddress, relayer: zeroAddress };
    const batch = (wallets: `0x${string}`[]) =>
      checkAllowed(
        "AgentIdentity",
        encodeFunctionData({
          abi: AgentIdentityAbi,
          functionName: "mintBatch",
          args: [wallets, wallets.map(() => "ipfs://x")],
        }),
        ctx,
      );
    const wallet = "0x00000000000000000000000000000000000000aa";
    assert.equal(batch(Array(MAX_MINT_BATCH).fill(wallet)).ok, true);
    assert.deepEqual(batch(Array(MAX_MINT_BATCH + 1).fill(wallet)), {
      ok: false,
      reason: `AgentIdentity.mintBatch: at most ${MAX_MINT_BATCH} mints per batch`,
    });
    assert.equal(batch([wallet, zeroAddress]).ok, false);
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

  it("relays run actions only in their consent form, and never resolve (ARBITER_ROLE is not the relayer's)", () => {
    const consent = { signer: zeroAddress, nonce: 0n, deadline: 1n, signature: "0x" as const };
    for (const [functionName, args] of [
      ["approve", [1n]],
      ["cancel", [1n]],
      ["claim", [1n, 2n]],
      ["resolve", [1n, true]],
    ] as const) {
      const data = encodeFunctionData({ abi: RunEscrowAbi, functionName, args } as never);
      assert.deepEqual(checkAllowed("RunEscrow", data), {
        ok: false,
        reason: `RunEscrow.${functionName} is not relayed`,
      });
    }
    const bySig = encodeFunctionData({ abi: RunEscrowAbi, functionName: "approveBySig", args: [1n, consent] });
    assert.equal(checkAllowed("RunEscrow", bySig).ok, true);
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
    // The relayer holds no subscription money: no USDC allowance, no sponsored runs (the SubscriptionVault's role).
    const approve = (spender: `0x${string}`) =>
      encodeFunctionData({ abi: TestUSDCAbi, functionName: "approve", args: [spender, 10n ** 12n] });
    assert.deepEqual(checkAllowed("USDC", approve(ctx.runEscrow), ctx), {
      ok: false,
      reason: "USDC.approve is not relayed",
    });
    const sponsored = encodeFunctionData({
      abi: RunEscrowAbi,
      functionName: "createSponsoredRun",
      args: ["0x00000000000000000000000000000000000a77ac", 1_000_000n, 10n ** 10n, 1, "ipfs://x"],
    });
    assert.equal(checkAllowed("RunEscrow", sponsored, ctx).ok, false);
    const trigger = encodeFunctionData({ abi: SubscriptionVaultAbi, functionName: "trigger", args: [1n, "ipfs://x"] });
    assert.equal(checkAllowed("SubscriptionVault", trigger, ctx).ok, true);
    const slash = (bps: bigint, reason: string) =>
      encodeFunctionData({ abi: StakeVaultAbi, functionName: "slash", args: [1n, bps, reason] });
    assert.equal(checkAllowed("StakeVault", slash(10_000n, "fraud"), ctx).ok, true);
    assert.equal(checkAllowed("StakeVault", slash(10_001n, "fraud"), ctx).ok, false);
    assert.equal(checkAllowed("StakeVault", slash(100n, "  "), ctx).ok, false);
    const credit = encodeFunctionData({ abi: RunEscrowAbi, functionName: "withdrawCredit", args: [ctx.relayer] });
    assert.equal(checkAllowed("RunEscrow", credit, ctx).ok, true);
  });
});

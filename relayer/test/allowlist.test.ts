import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { MAX_MINT_BATCH } from "@agenthub/common";
import {
  AgentIdentityAbi,
  InsurancePoolAbi,
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
    assert.equal(checkAllowed("SubscriptionVault", trigger, { ...ctx, scope: { subscriptionId: 1n } }).ok, true);
    assert.equal(checkAllowed("SubscriptionVault", trigger, ctx).ok, false, "only for the subscription named");
    const slash = (bps: bigint, reason: string) =>
      encodeFunctionData({ abi: StakeVaultAbi, functionName: "slash", args: [1n, bps, reason] });
    const agent1 = { ...ctx, scope: { agentId: 1n } };
    assert.equal(checkAllowed("StakeVault", slash(10_000n, "fraud"), agent1).ok, true);
    assert.equal(checkAllowed("StakeVault", slash(10_001n, "fraud"), agent1).ok, false);
    assert.equal(checkAllowed("StakeVault", slash(100n, "  "), agent1).ok, false);
    const credit = encodeFunctionData({ abi: RunEscrowAbi, functionName: "withdrawCredit", args: [ctx.relayer] });
    assert.equal(checkAllowed("RunEscrow", credit, ctx).ok, true);
    // Pays each agent's rewards only to its token's owner, whoever sends it.
    const payout = encodeFunctionData({ abi: RunEscrowAbi, functionName: "payRewards", args: [[1n, 2n]] });
    assert.equal(checkAllowed("RunEscrow", payout, ctx).ok, true);
  });

  describe("functions that act for one party on the relayer's role alone act only for the one the request named", () => {
    const ctx = {
      runEscrow: "0x00000000000000000000000000000000000e5c40" as const,
      relayer: "0x0000000000000000000000000000000000000e1a" as const,
    };
    const payer = "0x00000000000000000000000000000000000a11ce" as const;
    const sig = { v: 27, r: `0x${"11".repeat(32)}`, s: `0x${"22".repeat(32)}` } as const;
    const cases: Array<{
      target: "StakeVault" | "InsurancePool" | "AgentIdentity" | "SubscriptionVault";
      data: (id: bigint) => `0x${string}`;
      scope: "agentId" | "subscriptionId";
    }> = [
      {
        target: "StakeVault",
        scope: "agentId",
        data: (id) =>
          encodeFunctionData({
            abi: StakeVaultAbi,
            functionName: "depositWithPermit",
            args: [id, payer, 5n, 1n, sig.v, sig.r, sig.s],
          }),
      },
      {
        target: "StakeVault",
        scope: "agentId",
        data: (id) => encodeFunctionData({ abi: StakeVaultAbi, functionName: "requestWithdrawal", args: [id, 5n] }),
      },
      {
        target: "StakeVault",
        scope: "agentId",
        data: (id) => encodeFunctionData({ abi: StakeVaultAbi, functionName: "withdraw", args: [id] }),
      },
      {
        target: "StakeVault",
        scope: "agentId",
        data: (id) => encodeFunctionData({ abi: StakeVaultAbi, functionName: "slash", args: [id, 100n, "spam"] }),
      },
      {
        target: "InsurancePool",
        scope: "agentId",
        data: (id) =>
          encodeFunctionData({
            abi: InsurancePoolAbi,
            functionName: "stakeWithPermit",
            args: [id, payer, 5n, 1n, sig.v, sig.r, sig.s],
          }),
      },
      {
        target: "InsurancePool",
        scope: "agentId",
        data: (id) => encodeFunctionData({ abi: InsurancePoolAbi, functionName: "requestWithdrawal", args: [id, 5n] }),
      },
      {
        target: "InsurancePool",
        scope: "agentId",
        data: (id) => encodeFunctionData({ abi: InsurancePoolAbi, functionName: "withdraw", args: [id] }),
      },
      {
        target: "AgentIdentity",
        scope: "agentId",
        data: (id) =>
          encodeFunctionData({
            abi: AgentIdentityAbi,
            functionName: "setTokenURI",
            args: [id, "ipfs://bafkreiprofile"],
          }),
      },
      ...(["pauseSubscription", "resumeSubscription", "cancelSubscription"] as const).map((functionName) => ({
        target: "SubscriptionVault" as const,
        scope: "subscriptionId" as const,
        data: (id: bigint) => encodeFunctionData({ abi: SubscriptionVaultAbi, functionName, args: [id] }),
      })),
      {
        target: "SubscriptionVault",
        scope: "subscriptionId",
        data: (id) =>
          encodeFunctionData({
            abi: SubscriptionVaultAbi,
            functionName: "topUpWithPermit",
            args: [id, 5n, 1n, sig.v, sig.r, sig.s],
          }),
      },
      {
        target: "SubscriptionVault",
        scope: "subscriptionId",
        data: (id) =>
          encodeFunctionData({ abi: SubscriptionVaultAbi, functionName: "trigger", args: [id, "ipfs://bafkreirun"] }),
      },
    ];

    it("refused without a scope or for another agent or subscription; accepted for the named one", () => {
      for (const { target, data, scope } of cases) {
        const name = `${target} ${data(7n).slice(0, 10)}`;
        const bare = checkAllowed(target, data(7n), ctx);
        assert.equal(bare.ok, false, `${name} without a scope`);
        assert.match(!bare.ok ? bare.reason : "", new RegExp(`scope\\.${scope}`));
        const other = checkAllowed(target, data(8n), { ...ctx, scope: { [scope]: 7n } });
        assert.equal(other.ok, false, `${name} for another ${scope}`);
        const named = checkAllowed(target, data(7n), { ...ctx, scope: { [scope]: 7n } });
        assert.equal(named.ok, true, `${name} for the named ${scope}: ${!named.ok && named.reason}`);
      }
    });

    it("a permit deposit names its agent and a positive amount; its payer is the permit's signer, not a caller's claim", () => {
      for (const [target, abi] of [
        ["StakeVault", StakeVaultAbi],
        ["InsurancePool", InsurancePoolAbi],
      ] as const) {
        const functionName = target === "StakeVault" ? "depositWithPermit" : "stakeWithPermit";
        const data = (agentId: bigint, amount: bigint) =>
          encodeFunctionData({ abi, functionName, args: [agentId, payer, amount, 1n, sig.v, sig.r, sig.s] } as never);
        const scope = { agentId: 7n };
        assert.equal(checkAllowed(target, data(7n, 5n), { ...ctx, scope }).ok, true);
        assert.equal(checkAllowed(target, data(8n, 5n), { ...ctx, scope }).ok, false, "another agent");
        assert.equal(checkAllowed(target, data(7n, 0n), { ...ctx, scope }).ok, false, "nothing to stake");
        // No payer in the scope to trust: the contracts revert unless the payer's own permit succeeds
        // (test/contracts/stake-vault.test.ts, insurance.test.ts: a standing allowance cannot be pulled).
      }
    });

    it("amounts are positive and URIs are content addresses", () => {
      const agent = { ...ctx, scope: { agentId: 7n } };
      const request = (amount: bigint) =>
        encodeFunctionData({ abi: InsurancePoolAbi, functionName: "requestWithdrawal", args: [7n, amount] });
      assert.equal(checkAllowed("InsurancePool", request(0n), agent).ok, false);
      const uri = (value: string) =>
        encodeFunctionData({ abi: AgentIdentityAbi, functionName: "setTokenURI", args: [7n, value] });
      assert.equal(checkAllowed("AgentIdentity", uri("ipfs://bafkreiprofile"), agent).ok, true);
      for (const bad of ["https://attacker.example/profile.json", "ipfs://", "ipfs://a/../b", "data:,x"]) {
        assert.equal(checkAllowed("AgentIdentity", uri(bad), agent).ok, false, bad);
      }
      const trigger = encodeFunctionData({
        abi: SubscriptionVaultAbi,
        functionName: "trigger",
        args: [7n, "https://attacker.example/run.json"],
      });
      assert.equal(checkAllowed("SubscriptionVault", trigger, { ...ctx, scope: { subscriptionId: 7n } }).ok, false);
    });

    it("calls that carry their party's signature or pay a fixed party need no scope (the chain checks them)", () => {
      const consent = { signer: zeroAddress, nonce: 0n, deadline: 1n, signature: "0x" as const };
      for (const [target, data] of [
        ["RunEscrow", encodeFunctionData({ abi: RunEscrowAbi, functionName: "approveBySig", args: [1n, consent] })],
        ["RunEscrow", encodeFunctionData({ abi: RunEscrowAbi, functionName: "timeoutSlash", args: [1n] })],
        ["RunEscrow", encodeFunctionData({ abi: RunEscrowAbi, functionName: "releaseAfterReview", args: [1n] })],
        ["RunEscrow", encodeFunctionData({ abi: RunEscrowAbi, functionName: "expireDispute", args: [1n] })],
        ["RunEscrow", encodeFunctionData({ abi: RunEscrowAbi, functionName: "withdrawCredit", args: [payer] })],
        ["InsurancePool", encodeFunctionData({ abi: InsurancePoolAbi, functionName: "claim", args: [1n] })],
      ] as const) {
        assert.equal(checkAllowed(target, data, ctx).ok, true, `${target} ${data.slice(0, 10)}`);
      }
    });
  });
});

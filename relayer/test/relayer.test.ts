// The relayer against a real chain and a real Postgres (test/support/harness.ts): its one nonce lane, the
// idempotent resume of a request seen before (in the same process, after a restart, after a crash before the
// broadcast), and how a refused call is decoded. Counts of the signer's transactions come from the chain itself.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { after, before, describe, it } from "node:test";
import { rpcTransport } from "@agenthub/common";
import { AgentIdentityAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import { createRegistry } from "@agenthub/common/metrics";
import pino from "pino";
import { type Address, encodeFunctionData, type Hex, parseEventLogs, zeroHash } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { freePort } from "../../scripts/lib/stack.ts";
import { RelayError, Relayer, type RelayRequest } from "../src/relayer.ts";
import type { RunningRelayer } from "../src/server.ts";
import { type Harness, relayerAccount, startHarness } from "./support/harness.ts";

let h: Harness;
let relayer: RunningRelayer;
before(async () => {
  h = await startHarness();
  relayer = await h.startRelayer();
});
after(async () => {
  await h?.stop();
});

const someone = () => privateKeyToAccount(generatePrivateKey()).address;
const mint = (to: Address = someone(), idempotencyKey?: string): RelayRequest => ({
  target: "AgentIdentity",
  data: encodeFunctionData({ abi: AgentIdentityAbi, functionName: "mint", args: [to, "ipfs://relayer-test"] }),
  idempotencyKey,
});
/** The signer's transactions the chain has seen (mined and pending). */
const sentCount = () => h.publicClient.getTransactionCount({ address: relayerAccount.address, blockTag: "pending" });
const nonceOf = async (hash: Hex) => (await h.publicClient.getTransaction({ hash })).nonce;
const rowOf = async (key: string) =>
  (await h.db.query("select status, tx_hash, error from relayer.tx where idempotency_key = $1", [key])).rows[0];

/** Mints an agent through the relayer and returns its id. */
async function mintedAgent(): Promise<bigint> {
  const result = await relayer.relayer.submit(mint());
  const receipt = await h.publicClient.getTransactionReceipt({ hash: result.txHash });
  const [transfer] = parseEventLogs({ abi: AgentIdentityAbi, eventName: "Transfer", logs: receipt.logs });
  assert.ok(transfer, "the mint emitted Transfer");
  return transfer.args.tokenId;
}

async function refusal(promise: Promise<unknown>): Promise<RelayError> {
  const error = await promise.then(
    () => assert.fail("the call was expected to be refused"),
    (e: unknown) => e,
  );
  assert.ok(error instanceof RelayError, `a RelayError, got ${String(error)}`);
  return error;
}

describe("relayer: one nonce lane", () => {
  it("concurrent requests take consecutive nonces, each sent and mined once", async () => {
    const before = await sentCount();
    const results = await Promise.all(Array.from({ length: 8 }, () => relayer.relayer.submit(mint())));
    assert.equal(new Set(results.map((r) => r.txHash)).size, 8);
    const nonces = (await Promise.all(results.map((r) => nonceOf(r.txHash)))).sort((a, b) => a - b);
    assert.deepEqual(
      nonces,
      Array.from({ length: 8 }, (_, i) => before + i),
    );
    assert.equal(await sentCount(), before + 8, "nothing else was sent");
  });

  it("a nonce taken by another sender with the same key costs one retry at the next nonce, not the request", async () => {
    await relayer.relayer.submit(mint()); // the lane now holds its next nonce in memory
    const taken = await sentCount();
    const outside = await h.outsider.sendTransaction({
      account: relayerAccount,
      chain: null,
      to: relayerAccount.address,
      value: 0n,
    });
    assert.equal(await nonceOf(outside), taken);
    const result = await relayer.relayer.submit(mint());
    assert.equal(await nonceOf(result.txHash), taken + 1);
    const receipt = await h.publicClient.getTransactionReceipt({ hash: result.txHash });
    assert.equal(receipt.status, "success");
  });
});

describe("relayer: idempotent resume", () => {
  it("the same key, at once or later, answers the first transaction; only one is sent", async () => {
    const key = `test:${randomUUID()}`;
    const request = mint(someone(), key);
    const before = await sentCount();
    // Five at once: each later one shares the first's answer (none mistakes its fresh row for a crash and resends).
    const [a, b, ...rest] = await Promise.all(Array.from({ length: 5 }, () => relayer.relayer.submit(request)));
    assert.equal(a!.txHash, b!.txHash);
    for (const r of rest) assert.equal(r.txHash, a!.txHash);
    const c = await relayer.relayer.submit(request);
    assert.deepEqual(c, a);
    assert.equal(await sentCount(), before + 1);
    assert.equal((await rowOf(key)).status, "SUCCESS");
  });

  it("after a restart the recorded answer is given again, nothing is sent", async () => {
    const key = `test:${randomUUID()}`;
    const request = mint(someone(), key);
    const first = await relayer.relayer.submit(request);
    await relayer.close();
    relayer = await h.startRelayer();
    const before = await sentCount();
    const again = await relayer.relayer.submit(request);
    assert.equal(again.txHash, first.txHash);
    assert.equal(again.blockNumber, first.blockNumber);
    assert.deepEqual(again.logs, first.logs);
    assert.equal(await sentCount(), before);
  });

  it("a request recorded but never broadcast (a crash before sending) is sent once when retried", async () => {
    const key = `test:${randomUUID()}`;
    const request = mint(someone(), key);
    // What a process that died between recording the request and signing it leaves behind.
    const { created } = await h.store.begin({
      key,
      signer: relayerAccount.address,
      target: "AgentIdentity",
      functionName: "mint",
      to: h.deployments.contracts.AgentIdentity.address,
      data: request.data,
    });
    assert.ok(created);
    assert.equal((await rowOf(key)).status, "PENDING");
    const before = await sentCount();
    const result = await relayer.relayer.submit(request);
    assert.equal(await sentCount(), before + 1);
    assert.deepEqual(await rowOf(key), { status: "SUCCESS", tx_hash: result.txHash, error: null });
    assert.equal((await relayer.relayer.submit(request)).txHash, result.txHash);
    assert.equal(await sentCount(), before + 1);
  });
});

describe("relayer: refused calls", () => {
  it("a revert with the target's own error is decoded by name; nothing is sent and the row says why", async () => {
    const agentId = await mintedAgent();
    const key = `test:${randomUUID()}`;
    const before = await sentCount();
    const error = await refusal(
      relayer.relayer.submit({
        target: "StakeVault",
        data: encodeFunctionData({ abi: StakeVaultAbi, functionName: "withdraw", args: [agentId] }),
        idempotencyKey: key,
        scope: { agentId },
      }),
    );
    assert.equal(error.code, "TX_REVERTED");
    assert.equal(error.errorName, "StakeVaultNoWithdrawal");
    assert.equal(error.message, `StakeVaultNoWithdrawal(${agentId})`);
    assert.equal(await sentCount(), before);
    const row = await rowOf(key);
    assert.equal(row.status, "FAILED");
    assert.equal(row.error, error.message);
  });

  it("a call that acts for an agent without naming it is refused before signing: NOT_ALLOWED, nothing sent", async () => {
    const agentId = await mintedAgent();
    const before = await sentCount();
    const error = await refusal(
      relayer.relayer.submit({
        target: "StakeVault",
        data: encodeFunctionData({ abi: StakeVaultAbi, functionName: "withdraw", args: [agentId] }),
      }),
    );
    assert.equal(error.code, "NOT_ALLOWED");
    assert.match(error.message, /scope\.agentId/);
    const other = await refusal(
      relayer.relayer.submit({
        target: "StakeVault",
        data: encodeFunctionData({ abi: StakeVaultAbi, functionName: "withdraw", args: [agentId] }),
        scope: { agentId: agentId + 1n },
      }),
    );
    assert.equal(other.code, "NOT_ALLOWED");
    assert.equal(await sentCount(), before);
  });

  it("a revert deep inside the call (the token under the vault) is decoded with every contract's errors", async () => {
    const agentId = await mintedAgent();
    const from = someone();
    const before = await sentCount();
    // A permit that is not one: the vault reverts on the failed permit (before it would pull any USDC).
    const error = await refusal(
      relayer.relayer.submit({
        target: "StakeVault",
        data: encodeFunctionData({
          abi: StakeVaultAbi,
          functionName: "depositWithPermit",
          args: [agentId, from, 1_000_000n, 2n ** 40n, 27, zeroHash, zeroHash],
        }),
        scope: { agentId },
      }),
    );
    assert.equal(error.code, "TX_REVERTED");
    assert.equal(error.errorName, "ERC2612InvalidSigner");
    assert.match(error.message, /^ERC2612InvalidSigner\(0x[0-9a-fA-F]{40}\)$/);
    assert.equal(await sentCount(), before);
  });

  it("a chain that cannot be reached is not a revert: TX_FAILED, and the same key may be tried again", async () => {
    const deadRpc = `http://127.0.0.1:${await freePort()}`;
    const cut = new Relayer({
      rpcUrls: [deadRpc],
      transport: rpcTransport([deadRpc]),
      privateKey: h.env.RELAYER_PRIVATE_KEY as Hex,
      deployments: h.deployments,
      store: h.store,
      logger: pino({ level: "silent" }),
      registry: createRegistry("relayer_test"),
      receiptTimeoutMs: 2_000,
      pollIntervalMs: 50,
      replaceAfterBlocks: 3,
      replaceAfterMs: 60_000,
      feeBumpPercent: 20,
      maxFeePerGas: 200_000_000_000n,
      minBalanceWei: 0n,
    });
    const key = `test:${randomUUID()}`;
    const request = mint(someone(), key);
    const error = await refusal(cut.submit(request));
    assert.equal(error.code, "TX_FAILED");
    assert.equal(error.errorName, undefined);
    assert.equal((await rowOf(key)).status, "FAILED");
    // The relayer that reaches the chain sends it (a FAILED request never reached the chain).
    const result = await relayer.relayer.submit(request);
    assert.equal((await h.publicClient.getTransactionReceipt({ hash: result.txHash })).status, "success");
    assert.equal((await rowOf(key)).status, "SUCCESS");
  });
});

// The relayer an operator can leave alone: a stuck transaction is replaced at the same nonce so the calls behind
// it complete; several RPC URLs fall back; a low signer balance is logged and exported.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import { RelayerClient } from "@agenthub/relayer/client";
import { type Address, type Hex, keccak256, toHex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { freePort } from "../../scripts/lib/stack.ts";
import { faucet, registerAgent } from "../support/agents.ts";
import { metricValue, scrape } from "../support/metrics.ts";
import { startExtraRelayer } from "../support/processes.ts";
import { api, db, newWallet, publicClient, rpc, stack, waitUntil } from "../support/stack.ts";

const stops: (() => Promise<void>)[] = [];
after(async () => {
  for (const stop of stops) await stop();
  await db.end();
});

const DEAD = "0x000000000000000000000000000000000000dEaD" as Address;

interface TxRecord {
  id: string;
  nonce: string;
  status: string;
  tx_hash: string;
  replacements: number;
  function_name: string;
}

describe("relayer: stuck transactions", () => {
  it("a transaction priced below the base fee is replaced at the same nonce; the calls queued behind it complete", async () => {
    const relayer = new RelayerClient(stack.relayerUrl, stack.secrets.relayerToken);
    const relayerAddress = (await relayer.status()).address;
    const since = (await db.query<{ id: string }>("select coalesce(max(id), 0)::text as id from relayer.tx")).rows[0]!
      .id;
    const replacementsBefore =
      metricValue(
        await scrape(stack.relayerUrl, stack.secrets.metricsToken),
        "relayer_transaction_replacements_total",
        {},
      ) ?? 0;
    const baseFeeBefore = (await publicClient.getBlock({ blockTag: "latest" })).baseFeePerGas!;

    await rpc("evm_setAutomine", [false]);
    let calls: Promise<unknown>[] = [];
    try {
      // 1. A registration: its mint (a batch of one) goes to the node's pool and waits there (nothing is mined for now).
      const registration = registerAgent({ name: "Stuck Mint" });
      calls.push(registration);
      const first = await waitUntil("the registration's mint in the pool", async () => {
        const r = await db.query<{ nonce: string; hash: string; max_fee: string }>(
          `select t.nonce::text, a.hash, a.max_fee_per_gas::text as max_fee from relayer.tx t
           join relayer.tx_attempt a on a.tx_id = t.id where t.id > $1 and t.function_name = 'mintBatch'`,
          [since],
        );
        return r.rows[0];
      });
      // 2. The base fee jumps above what that transaction offers: as sent, it cannot be mined for a long while.
      await rpc("hardhat_setNextBlockBaseFeePerGas", [toHex(BigInt(first.max_fee) * 20n)]);
      await rpc("evm_mine");

      // 3. Two more calls queue behind it at higher nonces: a faucet transfer and a direct relayed mint.
      const wallet = newWallet();
      const funding = api("POST", "/api/dev/faucet", { body: { address: wallet.address, eth: "1000" } });
      const directMint = relayer.call("AgentIdentity", AgentIdentityAbi, "mint", [DEAD, "ipfs://bafkreistuckqueue"]);
      calls = [registration, funding, directMint];
      await waitUntil("three transactions in flight", async () => {
        const r = await db.query<{ n: number }>(
          "select count(*)::int as n from relayer.tx where id > $1 and status = 'SENT'",
          [since],
        );
        return r.rows[0]!.n >= 3;
      });
      const mined = await publicClient.getTransactionCount({ address: relayerAddress, blockTag: "latest" });
      assert.ok(mined <= Number(first.nonce), "the first transaction was mined although underpriced");

      // 4. Blocks resume. Without a replacement the first (and so the two behind it) stays unmined for ~25 blocks.
      await rpc("evm_setIntervalMining", [200]);
      const [registered, funded, direct] = await Promise.all([registration, funding, directMint]);
      assert.match(registered.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(funded.status, 200, JSON.stringify(funded.body));
      assert.match(direct.txHash, /^0x[0-9a-f]{64}$/);
      assert.equal(await publicClient.getBalance({ address: wallet.address }), 1000n);

      const rows = (
        await db.query<TxRecord>(
          `select id::text, nonce::text, status, tx_hash, replacements, function_name
           from relayer.tx where id > $1 order by nonce`,
          [since],
        )
      ).rows;
      const stuck = rows.find((r) => r.nonce === first.nonce)!;
      assert.equal(stuck.function_name, "mintBatch");
      assert.equal(stuck.status, "SUCCESS");
      assert.ok(stuck.replacements >= 1, "the stuck transaction was not replaced");
      assert.notEqual(stuck.tx_hash, first.hash, "the original (underpriced) version was mined");
      assert.equal(stuck.tx_hash, registered.txHash);
      const minedTx = await publicClient.getTransaction({ hash: registered.txHash });
      assert.equal(minedTx.nonce, Number(first.nonce), "the replacement used another nonce");
      assert.equal(minedTx.from.toLowerCase(), relayerAddress.toLowerCase());
      assert.ok(minedTx.maxFeePerGas! > BigInt(first.max_fee));
      await assert.rejects(
        publicClient.getTransactionReceipt({ hash: first.hash as Hex }),
        "the original has no receipt",
      );
      const behind = rows.filter((r) => BigInt(r.nonce) > BigInt(first.nonce));
      assert.ok(behind.length >= 2);
      for (const row of behind) assert.equal(row.status, "SUCCESS", `${row.function_name} at nonce ${row.nonce}`);
      const versions = await db.query("select hash from relayer.tx_attempt where tx_id = $1", [stuck.id]);
      assert.equal(versions.rowCount, stuck.replacements + 1, "every signed version is recorded");

      const replacementsAfter = metricValue(
        await scrape(stack.relayerUrl, stack.secrets.metricsToken),
        "relayer_transaction_replacements_total",
        {},
      );
      assert.ok((replacementsAfter ?? 0) > replacementsBefore);
    } finally {
      await Promise.allSettled(calls);
      await rpc("evm_setIntervalMining", [0]);
      await rpc("evm_setAutomine", [true]);
      await rpc("hardhat_setNextBlockBaseFeePerGas", [toHex(baseFeeBefore)]);
      await rpc("evm_mine");
    }
  });
});

describe("relayer: RPC fallback and signer balance", () => {
  it("works through the second RPC URL when the first is down, and warns about a low balance", async () => {
    const key = generatePrivateKey();
    const address = privateKeyToAccount(key).address;
    await faucet(address, 0n, 10n ** 15n); // 0.001 ETH, below the 0.01 ETH minimum set below
    const deadRpc = `http://127.0.0.1:${await freePort()}`;
    const second = await startExtraRelayer({
      RELAYER_PRIVATE_KEY: key,
      RPC_URLS: `${deadRpc},${stack.rpcUrl}`,
      RPC_URL: deadRpc,
      RELAYER_MIN_BALANCE_WEI: (10n ** 16n).toString(),
      LOCAL_CHAIN: "true",
    });
    stops.push(second.stop);

    const status = await new RelayerClient(second.url, stack.secrets.relayerToken).status();
    assert.equal(status.ready, true, JSON.stringify(status));
    assert.equal(status.address, address);
    assert.equal(status.balanceLow, true);

    // A write through the fallback: the faucet sends 1 wei from the second relayer's own key.
    const target = newWallet().address;
    const res = await fetch(`${second.url}/v1/faucet`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${stack.secrets.relayerToken}` },
      body: JSON.stringify({ address: target, eth: "1" }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { ethTx } = (await res.json()) as { ethTx: Hex };
    const receipt = await publicClient.getTransactionReceipt({ hash: ethTx });
    assert.equal(receipt.from.toLowerCase(), address.toLowerCase());
    assert.equal(await publicClient.getBalance({ address: target }), 1n);

    const metrics = await scrape(second.url, stack.secrets.metricsToken);
    assert.equal(metricValue(metrics, "relayer_signer_balance_low", {}), 1);
    assert.ok((metricValue(metrics, "relayer_signer_balance_eth", {}) ?? 1) < 0.01);
    const warning = second.lines
      .map((line) => {
        try {
          return JSON.parse(line) as { level: number; msg: string; balanceWei?: string; service?: string };
        } catch {
          return undefined;
        }
      })
      .find((entry) => entry?.msg?.includes("balance is low"));
    assert.ok(warning, `no low-balance warning in:\n${second.lines.join("\n")}`);
    assert.equal(warning.level, 40, "a warning");
    assert.equal(warning.service, "relayer");
    assert.match(warning.balanceWei ?? "", /^\d+$/);
  });
});

describe("relayer: restart", () => {
  it("sends again a version recorded before a crash but never broadcast; the next call follows it", async () => {
    const key = generatePrivateKey();
    const account = privateKeyToAccount(key);
    await faucet(account.address, 0n, 10n ** 17n);
    // What a relayer that died between recording a signed version and broadcasting it leaves behind.
    const recipient = newWallet().address;
    const nonce = await publicClient.getTransactionCount({ address: account.address, blockTag: "pending" });
    const fees = await publicClient.estimateFeesPerGas();
    const serialized = await account.signTransaction({
      chainId: 84532,
      type: "eip1559",
      to: recipient,
      value: 5n,
      gas: 21_000n,
      nonce,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    });
    const lostHash = keccak256(serialized);
    const row = await db.query<{ id: string }>(
      `insert into relayer.tx (signer, target, function_name, to_address, value, data, status, tx_hash, nonce, gas)
       values ($1, 'faucet', 'eth', $2, 5, '0x', 'SENT', $3, $4, 21000) returning id::text`,
      [account.address, recipient, lostHash, nonce],
    );
    const id = row.rows[0]!.id;
    await db.query(
      `insert into relayer.tx_attempt (hash, tx_id, max_fee_per_gas, max_priority_fee_per_gas, sent_block, sent_at)
       values ($1, $2, $3, $4, $5, now() - interval '1 minute')`,
      [
        lostHash,
        id,
        fees.maxFeePerGas.toString(),
        fees.maxPriorityFeePerGas.toString(),
        await publicClient.getBlockNumber(),
      ],
    );

    // Its .env: a value only the file sets is used; one the real environment sets (the port) wins over the file.
    const envFile = join(mkdtempSync(join(tmpdir(), "relayer-env-")), ".env");
    writeFileSync(envFile, "RELAYER_MIN_BALANCE_WEI=12345\nRELAYER_PORT=1\n");
    const restarted = await startExtraRelayer({
      RELAYER_PRIVATE_KEY: key,
      RELAYER_REPLACE_AFTER_SECONDS: "2",
      LOCAL_CHAIN: "true",
      ENV_FILE: envFile,
    });
    stops.push(restarted.stop);
    const client = new RelayerClient(restarted.url, stack.secrets.relayerToken);
    assert.equal((await client.status()).minBalanceWei, "12345");

    const settled = await waitUntil("the recorded transaction mined", async () => {
      const r = await db.query<TxRecord>("select status, tx_hash, replacements from relayer.tx where id = $1", [id]);
      return r.rows[0]?.status === "SUCCESS" ? r.rows[0] : undefined;
    });
    assert.ok(settled.replacements >= 1);
    assert.notEqual(settled.tx_hash, lostHash);
    assert.equal((await publicClient.getTransaction({ hash: settled.tx_hash as Hex })).nonce, nonce);
    assert.equal(await publicClient.getBalance({ address: recipient }), 5n);

    const res = await fetch(`${restarted.url}/v1/faucet`, {
      method: "POST",
      headers: { "content-type": "application/json", authorization: `Bearer ${stack.secrets.relayerToken}` },
      body: JSON.stringify({ address: recipient, eth: "1" }),
    });
    assert.equal(res.status, 200, await res.clone().text());
    const { ethTx } = (await res.json()) as { ethTx: Hex };
    assert.equal((await publicClient.getTransaction({ hash: ethTx })).nonce, nonce + 1);
    assert.equal(await publicClient.getBalance({ address: recipient }), 6n);
  });
});

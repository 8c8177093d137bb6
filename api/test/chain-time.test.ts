// ChainClock's single flight: callers that find the cache expired at the same time share one block read, and
// fresh() never answers from a read that began before it was called.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { PublicClient } from "viem";
import { ChainClock } from "../src/lib/chain-time.ts";

/** A client whose getBlock calls stay pending until the test answers them, in any order. */
function heldClient() {
  const pending: { resolve: (b: { number: bigint; timestamp: bigint }) => void }[] = [];
  const client = {
    getBlock: () => new Promise((resolve) => pending.push({ resolve })),
  } as unknown as PublicClient;
  return { client, pending };
}

const future = BigInt(Math.floor(Date.now() / 1000) + 10_000);

test("concurrent now() calls with an expired cache share one block read", async () => {
  const { client, pending } = heldClient();
  const clock = new ChainClock(client, 500);
  const answers = Array.from({ length: 50 }, () => clock.now());
  assert.equal(pending.length, 1);
  pending[0]!.resolve({ number: 7n, timestamp: future });
  assert.deepEqual(new Set(await Promise.all(answers)), new Set([future]));
  assert.equal(await clock.blockNumber(), 7n);
  assert.equal(pending.length, 1, "answered from the cache afterwards");
});

test("fresh() starts its own read; a slower earlier read does not replace a newer block", async () => {
  const { client, pending } = heldClient();
  const clock = new ChainClock(client, 60_000);
  const early = clock.now();
  const fresh = clock.fresh();
  assert.equal(pending.length, 2, "fresh() did not join the read that began before it");
  pending[1]!.resolve({ number: 9n, timestamp: future + 5n });
  assert.equal(await fresh, future + 5n);
  pending[0]!.resolve({ number: 8n, timestamp: future });
  await early;
  assert.equal(await clock.blockNumber(), 9n);
  assert.equal(await clock.now(), future + 5n);
});

test("a failed read is not cached: the next caller reads again", async () => {
  let calls = 0;
  const client = {
    getBlock: async () => {
      calls++;
      if (calls === 1) throw new Error("node down");
      return { number: 1n, timestamp: future };
    },
  } as unknown as PublicClient;
  const clock = new ChainClock(client, 500);
  await assert.rejects(Promise.all([clock.now(), clock.now()]), /node down/);
  assert.equal(calls, 1);
  assert.equal(await clock.now(), future);
  assert.equal(calls, 2);
});

test("refresh ahead: late in the window a caller gets the cached block at once and a background read renews it", async () => {
  const { client, pending } = heldClient();
  const clock = new ChainClock(client, 200);
  const first = clock.now();
  pending[0]!.resolve({ number: 1n, timestamp: future });
  assert.equal(await first, future);
  assert.equal(await clock.now(), future);
  assert.equal(pending.length, 1, "early in the window: the cache alone");
  await new Promise((r) => setTimeout(r, 170));
  assert.equal(await clock.now(), future, "late in the window: still answered from the cache, without waiting");
  assert.equal(pending.length, 2, "and one read started behind it");
  await clock.now();
  assert.equal(pending.length, 2, "joined, not repeated");
  pending[1]!.resolve({ number: 2n, timestamp: future + 3n });
  await new Promise((r) => setImmediate(r));
  assert.equal(await clock.blockNumber(), 2n, "the renewed block, with no caller having waited for it");
  assert.equal(pending.length, 2);
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { HttpRequestError, RpcRequestError } from "viem";
import { FeeCapReached, initialFees, replacementFees } from "../src/fees.ts";
import { classifySendError } from "../src/tracker.ts";

const gwei = 1_000_000_000n;

describe("relayer fee policy", () => {
  it("caps the first offer at the maximum fee", () => {
    assert.deepEqual(initialFees({ maxFeePerGas: 3n * gwei, maxPriorityFeePerGas: gwei }, 100n * gwei), {
      maxFeePerGas: 3n * gwei,
      maxPriorityFeePerGas: gwei,
    });
    assert.deepEqual(initialFees({ maxFeePerGas: 300n * gwei, maxPriorityFeePerGas: 200n * gwei }, 100n * gwei), {
      maxFeePerGas: 100n * gwei,
      maxPriorityFeePerGas: 100n * gwei,
    });
  });

  it("raises both fees by at least the bump, rounding up, and follows a higher network estimate", () => {
    const previous = { maxFeePerGas: 10n * gwei + 1n, maxPriorityFeePerGas: 1n * gwei };
    const quiet = replacementFees(previous, { maxFeePerGas: gwei, maxPriorityFeePerGas: 1n }, 10, 1000n * gwei);
    assert.equal(quiet.maxFeePerGas, 11n * gwei + 2n); // 10% of an odd amount rounds up: never below the node's rule
    assert.equal(quiet.maxPriorityFeePerGas, 1_100_000_000n);
    const spike = replacementFees(
      previous,
      { maxFeePerGas: 50n * gwei, maxPriorityFeePerGas: 3n * gwei },
      10,
      1000n * gwei,
    );
    assert.deepEqual(spike, { maxFeePerGas: 50n * gwei, maxPriorityFeePerGas: 3n * gwei });
  });

  it("refuses to go above the cap", () => {
    const previous = { maxFeePerGas: 95n * gwei, maxPriorityFeePerGas: gwei };
    assert.throws(
      () => replacementFees(previous, { maxFeePerGas: gwei, maxPriorityFeePerGas: gwei }, 10, 100n * gwei),
      FeeCapReached,
    );
  });

  it("reads a node's answer to a broadcast", () => {
    const rpc = (message: string) => new RpcRequestError({ body: {}, error: { code: -32000, message }, url: "x" });
    assert.equal(classifySendError(rpc("already known")), "accepted");
    assert.equal(classifySendError(rpc("Known transaction: 0xabc")), "accepted");
    assert.equal(classifySendError(rpc("Nonce too low. Expected nonce to be 5 but got 4.")), "nonce-used");
    assert.equal(classifySendError(rpc("replacement transaction underpriced")), "underpriced");
    assert.equal(classifySendError(rpc("insufficient funds for gas * price + value")), "rejected");
    assert.equal(classifySendError(new HttpRequestError({ url: "http://x", details: "socket hang up" })), "unknown");
  });
});

import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { deriveStatus, type StakeFacts } from "../src/domain/agent-status.ts";

const DAY = 86_400n;
/** The vault's minimum stake at deployment (governance may change it; the caller passes the live value). */
const MIN = 20_000_000n;
const stake = (over: Partial<StakeFacts> = {}): StakeFacts => ({
  amount: 20_000_000n,
  pendingWithdrawal: 0n,
  stakedAt: 1_000n,
  trustState: "Good",
  strikes: 0,
  ...over,
});

describe("trust ladder", () => {
  it("UNVERIFIED without stake or below the minimum", () => {
    assert.equal(deriveStatus(null, 0, 0n, MIN), "UNVERIFIED");
    assert.equal(deriveStatus(stake({ amount: 19_999_999n }), 0, 2_000n, MIN), "UNVERIFIED");
  });
  it("PROVISIONAL at 20 USDC; a pending withdrawal counts against it", () => {
    assert.equal(deriveStatus(stake(), 0, 2_000n, MIN), "PROVISIONAL");
    assert.equal(
      deriveStatus(stake({ amount: 30_000_000n, pendingWithdrawal: 15_000_000n }), 0, 2_000n, MIN),
      "UNVERIFIED",
    );
  });
  it("ESTABLISHED needs both 30 days and 5 completions", () => {
    const at = 1_000n + 30n * DAY;
    assert.equal(deriveStatus(stake(), 5, at, MIN), "ESTABLISHED");
    assert.equal(deriveStatus(stake(), 4, at, MIN), "PROVISIONAL");
    assert.equal(deriveStatus(stake(), 5, at - 1n, MIN), "PROVISIONAL");
  });
  it("FROZEN whenever the vault says so, whatever is staked; a good strike record does not freeze", () => {
    assert.equal(
      deriveStatus(stake({ amount: 40_000_000n, trustState: "Frozen", strikes: 1 }), 0, 2_000n, MIN),
      "FROZEN",
    );
    assert.equal(deriveStatus(stake({ amount: 0n, trustState: "Frozen", strikes: 1 }), 0, 2_000n, MIN), "FROZEN");
    assert.equal(deriveStatus(stake({ amount: 40_000_000n, strikes: 2 }), 0, 2_000n, MIN), "PROVISIONAL");
  });
  it("uses the minimum it is given: a governance change moves agents between UNVERIFIED and PROVISIONAL", () => {
    assert.equal(deriveStatus(stake(), 0, 2_000n, 30_000_000n), "UNVERIFIED");
    assert.equal(deriveStatus(stake({ amount: 15_000_000n }), 0, 2_000n, 10_000_000n), "PROVISIONAL");
  });
  it("BANNED whenever the vault says so, whatever is staked or completed", () => {
    const at = 10n ** 9n;
    assert.equal(deriveStatus(stake({ amount: 100_000_000n, trustState: "Banned", strikes: 3 }), 9, at, MIN), "BANNED");
    assert.equal(deriveStatus(stake({ amount: 0n, trustState: "Banned", strikes: 0 }), 0, at, MIN), "BANNED");
  });
});

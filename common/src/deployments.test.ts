import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { contractNames, loadDeployments } from "./deployments.ts";

const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}`;
const valid = {
  network: "localhost",
  chainId: 84532,
  usdc: { address: addr(1), name: "USDC", version: "2", decimals: 6 },
  treasury: addr(2),
  startBlock: 1,
  contracts: Object.fromEntries(contractNames.map((name, i) => [name, { address: addr(10 + i), startBlock: i + 1 }])),
  deployedAt: new Date().toISOString(),
};

function write(value: unknown): string {
  const file = join(mkdtempSync(join(tmpdir(), "deployments-")), "d.json");
  writeFileSync(file, JSON.stringify(value));
  return file;
}

describe("deployments file", () => {
  it("loads and checksums addresses", () => {
    const d = loadDeployments(write(valid));
    assert.equal(d.contracts.RunEscrow.address, "0x000000000000000000000000000000000000000C");
    assert.equal(d.usdc.version, "2");
  });

  it("rejects missing contracts and bad addresses with a readable error", () => {
    const { RunEscrow: _omit, ...rest } = valid.contracts;
    assert.throws(() => loadDeployments(write({ ...valid, contracts: rest })), /RunEscrow/);
    assert.throws(() => loadDeployments(write({ ...valid, treasury: "0x123" })), /not an address/);
    assert.throws(() => loadDeployments("/nonexistent/file.json"), /cannot read deployments file/);
  });
});

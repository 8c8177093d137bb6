// The SDK's human-readable contract fragments (sdk/src/abi.ts) against the generated ABIs: a contract change that
// renames a function or changes a parameter type fails here.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type Abi, type AbiFunction, toFunctionSignature } from "viem";
// A relative import: the published package must not depend on the private workspace package.
import * as generated from "../../common/src/generated/abis.ts";
import { erc20Abi, governanceTokenAbi, insurancePoolAbi, runEscrowAbi, stakeVaultAbi } from "../src/abi.ts";

const signatures = (abi: Abi) =>
  new Set(abi.filter((f): f is AbiFunction => f.type === "function").map((f) => toFunctionSignature(f)));

describe("SDK contract fragments", () => {
  for (const [name, fragments, contract] of [
    ["USDC", erc20Abi, generated.TestUSDCAbi],
    ["StakeVault", stakeVaultAbi, generated.StakeVaultAbi],
    ["RunEscrow", runEscrowAbi, generated.RunEscrowAbi],
    ["InsurancePool", insurancePoolAbi, generated.InsurancePoolAbi],
    ["AgentHubToken", governanceTokenAbi, generated.AgentHubTokenAbi],
  ] as const) {
    it(`${name}: every fragment exists in the compiled contract`, () => {
      const known = signatures(contract as Abi);
      for (const f of signatures(fragments as Abi)) assert.ok(known.has(f), `${name} has no ${f}`);
    });
  }
});

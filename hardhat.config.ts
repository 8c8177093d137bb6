import { createRequire } from "node:module";
import hardhatMocha from "@nomicfoundation/hardhat-mocha";
import hardhatToolboxViem from "@nomicfoundation/hardhat-toolbox-viem";
import { configVariable, defineConfig } from "hardhat/config";

// The compiler comes from the `solc` npm package: this machine cannot download compilers at run time.
const require = createRequire(import.meta.url);
const solcVersion: string = require("solc/package.json").version;
/** Optimizer tuned for calls, not deployment: the hot paths run thousands of times per deployment (docs/decisions.md). */
export const solcSettings = { optimizer: { enabled: true, runs: 2000 }, evmVersion: "cancun" } as const;

export default defineConfig({
  plugins: [hardhatToolboxViem, hardhatMocha],
  solidity: {
    profiles: {
      default: {
        compilers: [{ version: solcVersion, path: require.resolve("solc/soljson.js"), settings: solcSettings }],
        // ERC-8004's readAllFeedback answers seven arrays beside five arguments: more than the legacy code
        // generator's stack reaches, so that one file goes through the IR pipeline.
        overrides: {
          // RunEscrow is at the 24,576-byte code limit: at 2,000 runs the optimizer duplicates code for speed and the
          // escrow no longer fits (25.1 kB); at 500 it is 22.3 kB for a few gas per call (docs/decisions.md).
          "contracts/RunEscrow.sol": {
            version: solcVersion,
            path: require.resolve("solc/soljson.js"),
            settings: { ...solcSettings, optimizer: { enabled: true, runs: 500 } },
          },
          "contracts/erc8004/ReputationRegistry.sol": {
            version: solcVersion,
            path: require.resolve("solc/soljson.js"),
            settings: { ...solcSettings, viaIR: true },
          },
        },
      },
    },
  },
  paths: { sources: "./contracts", tests: { mocha: "./test/contracts" } },
  networks: {
    // In-process chain used by contract tests; same chain id as Base Sepolia so signatures match production domains.
    default: { type: "edr-simulated", chainType: "l1", chainId: 84532 },
    localhost: { type: "http", chainType: "l1", url: process.env.RPC_URL ?? "http://127.0.0.1:8545" },
    // Keys and URLs are configuration variables: `npx hardhat keystore set BASE_SEPOLIA_DEPLOYER_KEY` (encrypted
    // on this machine, outside the repo), or an environment variable of the same name. Nothing is read until a
    // command uses this network.
    baseSepolia: {
      type: "http",
      chainType: "op",
      chainId: 84532,
      url: configVariable("BASE_SEPOLIA_RPC_URL"),
      accounts: [configVariable("BASE_SEPOLIA_DEPLOYER_KEY")],
    },
  },
  // `hardhat ignition deploy ... --verify` and `hardhat verify` (Etherscan v2 covers Base Sepolia; Blockscout and
  // Sourcify need no key).
  verify: {
    etherscan: { apiKey: configVariable("ETHERSCAN_API_KEY") },
    blockscout: { enabled: true },
    sourcify: { enabled: true },
  },
  test: { mocha: { timeout: 120000 } },
});

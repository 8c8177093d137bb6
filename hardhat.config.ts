import { createRequire } from "node:module";
import hardhatMocha from "@nomicfoundation/hardhat-mocha";
import hardhatToolboxViem from "@nomicfoundation/hardhat-toolbox-viem";
import { defineConfig } from "hardhat/config";

// The compiler comes from the `solc` npm package: this machine cannot download compilers at run time.
const require = createRequire(import.meta.url);
const solcVersion: string = require("solc/package.json").version;

export default defineConfig({
  plugins: [hardhatToolboxViem, hardhatMocha],
  solidity: {
    profiles: {
      default: {
        version: solcVersion,
        path: require.resolve("solc/soljson.js"),
        settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: "cancun" },
      },
    },
  },
  paths: { sources: "./contracts", tests: { mocha: "./test/contracts" } },
  networks: {
    // In-process chain used by contract tests; same chain id as Base Sepolia so signatures match production domains.
    default: { type: "edr-simulated", chainType: "l1", chainId: 84532 },
    localhost: { type: "http", chainType: "l1", url: process.env.RPC_URL ?? "http://127.0.0.1:8545" },
    baseSepolia: {
      type: "http",
      chainType: "l1",
      url: process.env.RPC_URL ?? "https://sepolia.base.org",
      accounts: process.env.DEPLOYER_PRIVATE_KEY ? [process.env.DEPLOYER_PRIVATE_KEY] : [],
    },
  },
  test: { mocha: { timeout: 120000 } },
});

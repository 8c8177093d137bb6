// Deploys AgentHub to a live network (Base Sepolia by default) and writes deployments/<network>.json.
//   RPC_URL=https://sepolia.base.org DEPLOYER_PRIVATE_KEY=0x... RELAYER_ADDRESS=0x... pnpm run deploy:base-sepolia
import { join } from "node:path";
import { parseEnv } from "@agenthub/common";
import { z } from "zod";
import { repoRoot } from "./lib/chain.ts";
import { deployAll } from "./lib/deploy.ts";

const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

const env = parseEnv(
  z.object({
    RPC_URL: z.string().url(),
    DEPLOYER_PRIVATE_KEY: z.string().regex(/^0x[0-9a-fA-F]{64}$/),
    RELAYER_ADDRESS: z.string().regex(/^0x[0-9a-fA-F]{40}$/),
    NETWORK_NAME: z.string().default("baseSepolia"),
    /** Circle's USDC on Base Sepolia unless overridden; its EIP-712 domain is ("USDC", "2"). */
    USDC_ADDRESS: z
      .string()
      .regex(/^0x[0-9a-fA-F]{40}$/)
      .default(BASE_SEPOLIA_USDC),
    USDC_NAME: z.string().default("USDC"),
    USDC_VERSION: z.string().default("2"),
  }),
);

const outFile = join(repoRoot, "deployments", `${env.NETWORK_NAME}.json`);
const result = await deployAll({
  network: env.NETWORK_NAME,
  rpcUrl: env.RPC_URL,
  deployerKey: env.DEPLOYER_PRIVATE_KEY as `0x${string}`,
  relayer: env.RELAYER_ADDRESS as `0x${string}`,
  usdc: { address: env.USDC_ADDRESS as `0x${string}`, name: env.USDC_NAME, version: env.USDC_VERSION },
  outFile,
  log: console.log,
});
console.log(`deployed to chain ${result.chainId}; addresses written to ${outFile}`);

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { getAddress } from "viem";
import { z } from "zod";

const address = z.string().transform((value, ctx) => {
  try {
    return getAddress(value);
  } catch {
    ctx.addIssue({ code: "custom", message: `not an address: ${value}` });
    return z.NEVER;
  }
});

export const contractNames = [
  "AgentIdentity",
  "StakeVault",
  "RunEscrow",
  "InsurancePool",
  "SubscriptionVault",
  "AgentHubToken",
  "AgentHubTimelock",
  "AgentHubGovernor",
] as const;
export type ContractName = (typeof contractNames)[number];

const deployedContract = z.object({ address, startBlock: z.number().int().nonnegative() });

/** The file `deployments/<network>.json` written by the deploy script and read by every service. */
export const deploymentsSchema = z.object({
  network: z.string(),
  chainId: z.number().int().positive(),
  /** USDC token: TestUSDC on local chains, Circle's USDC on Base Sepolia. */
  usdc: z.object({ address, name: z.string(), version: z.string(), decimals: z.number().int() }),
  /** Receives platform fees (the governance timelock). */
  treasury: address,
  /** The emergency 3-of-5 Safe holding PAUSER_ROLE (absent in files written before it existed). */
  emergencySafe: address.optional(),
  /**
   * ERC-4337 v0.8 / EIP-7702: the canonical EntryPoint and account implementations, and AgentHub's verifying
   * paymaster (its start block is where the indexer reads UserOperationEvents). Absent in files written before.
   */
  accountAbstraction: z
    .object({
      entryPoint: address,
      simple7702Account: address,
      simpleAccountFactory: address,
      paymaster: deployedContract,
    })
    .optional(),
  /**
   * The chain's ERC-8004 IdentityRegistry and ReputationRegistry (canonical singletons on Base Sepolia; AgentHub's
   * implementation at the same addresses on local chains). Absent in files written before.
   */
  erc8004: z.object({ identityRegistry: address, reputationRegistry: address }).optional(),
  /** Lowest start block of all contracts: where indexing begins. */
  startBlock: z.number().int().nonnegative(),
  contracts: z.object(
    Object.fromEntries(contractNames.map((name) => [name, deployedContract])) as {
      [K in ContractName]: typeof deployedContract;
    },
  ),
  deployedAt: z.string(),
});
export type Deployments = z.infer<typeof deploymentsSchema>;

/** Where `npm start` writes the local deployment: the repository's deployments/localhost.json (any working folder). */
export const defaultDeploymentsFile = fileURLToPath(new URL("../../deployments/localhost.json", import.meta.url));

export function loadDeployments(path: string): Deployments {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    throw new Error(`cannot read deployments file ${path}: ${(error as Error).message}`);
  }
  return deploymentsSchema.parse(raw);
}

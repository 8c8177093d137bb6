// Running the Ignition modules outside the Hardhat CLI (the local stack) and turning an Ignition deployment
// folder (ours or `hardhat ignition deploy`'s) into deployments/<network>.json, the file every service reads.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { type Deployments, deploymentsSchema } from "@agenthub/common";
import type { Artifact, ArtifactResolver, EIP1193Provider } from "@nomicfoundation/ignition-core";
import { type Address, createPublicClient, erc20Abi, getAddress, http, parseAbi } from "viem";
import { repoRoot } from "./chain.ts";

/** A JSON-RPC provider over HTTP, enough for Ignition against a node with unlocked accounts. */
export function httpProvider(url: string): EIP1193Provider {
  let id = 0;
  return {
    async request({ method, params }) {
      const res = await fetch(url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params: params ?? [] }),
      });
      const body = (await res.json()) as {
        result?: unknown;
        error?: { code: number; message: string; data?: unknown };
      };
      if (body.error) throw Object.assign(new Error(body.error.message), body.error);
      return body.result;
    },
  };
}

/** Artifacts compiled by `hardhat compile` (artifacts/contracts/<File>.sol/<Name>.json), found by contract name. */
export function compiledArtifacts(dir = join(repoRoot, "artifacts", "contracts")): ArtifactResolver {
  const byName = new Map<string, string>();
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      const path = join(d, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith(".json") && !entry.endsWith(".dbg.json")) byName.set(entry.slice(0, -5), path);
    }
  };
  if (!existsSync(dir)) throw new Error(`no compiled contracts in ${dir}: run \`pnpm run compile\` first`);
  walk(dir);
  return {
    async loadArtifact(name) {
      const path = byName.get(name);
      if (!path) throw new Error(`no artifact for ${name} in ${dir}: run \`pnpm run compile\``);
      return JSON.parse(readFileSync(path, "utf8")) as Artifact;
    },
    async getBuildInfo() {
      return undefined; // only verification needs build info; that runs through the Hardhat CLI
    },
  };
}

/** The future ids of the contracts every service reads, per Ignition module id. */
const CONTRACT_FUTURES = {
  AgentIdentity: "AgentIdentity",
  StakeVault: "StakeVault",
  RunEscrow: "RunEscrow",
  InsurancePool: "InsurancePool",
  SubscriptionVault: "SubscriptionVault",
  AgentHubToken: "AgentHubToken",
  AgentHubTimelock: "AgentHubTimelock",
  AgentHubGovernor: "AgentHubGovernor",
} as const;

interface JournalReceipt {
  contractAddress?: string;
  blockNumber: number;
}

/**
 * deployments/<network>.json from an Ignition deployment folder: addresses from deployed_addresses.json, start
 * blocks from the journal's confirmed receipts, USDC's EIP-712 name and version read from the token itself.
 */
export async function deploymentsFromIgnition(opts: {
  deploymentDir: string;
  moduleId: string;
  network: string;
  rpcUrl: string;
}): Promise<Deployments> {
  const addresses = JSON.parse(readFileSync(join(opts.deploymentDir, "deployed_addresses.json"), "utf8")) as Record<
    string,
    string
  >;
  const address = (future: string): Address => {
    const value = addresses[`${opts.moduleId}#${future}`];
    if (!value) throw new Error(`${opts.deploymentDir} has no ${opts.moduleId}#${future}: is the deployment complete?`);
    return getAddress(value);
  };
  const blockOf = new Map<string, number>();
  for (const line of readFileSync(join(opts.deploymentDir, "journal.jsonl"), "utf8").split("\n")) {
    if (!line.trim()) continue;
    const receipt = (JSON.parse(line) as { receipt?: JournalReceipt }).receipt;
    if (receipt?.contractAddress) blockOf.set(getAddress(receipt.contractAddress), Number(receipt.blockNumber));
  }
  const contracts = Object.fromEntries(
    Object.entries(CONTRACT_FUTURES).map(([name, future]) => {
      const at = address(future);
      const startBlock = blockOf.get(at);
      if (startBlock === undefined) throw new Error(`no deployment receipt for ${future} (${at}) in the journal`);
      return [name, { address: at, startBlock }];
    }),
  ) as Deployments["contracts"];

  const usdcAddress =
    addresses[`${opts.moduleId}#TestUSDC`] ?? (await deployedUsdc(opts.rpcUrl, contracts.StakeVault.address));
  const client = createPublicClient({ transport: http(opts.rpcUrl) });
  const usdc = getAddress(usdcAddress);
  const versionAbi = parseAbi(["function version() view returns (string)"]);
  const [name, version, decimals, chainId] = await Promise.all([
    client.readContract({ address: usdc, abi: erc20Abi, functionName: "name" }),
    client.readContract({ address: usdc, abi: versionAbi, functionName: "version" }),
    client.readContract({ address: usdc, abi: erc20Abi, functionName: "decimals" }),
    client.getChainId(),
  ]);
  const paymaster = address("VerifyingPaymaster");
  const paymasterBlock = blockOf.get(paymaster);
  if (paymasterBlock === undefined) throw new Error(`no deployment receipt for VerifyingPaymaster (${paymaster})`);
  return deploymentsSchema.parse({
    network: opts.network,
    chainId,
    usdc: { address: usdc, name, version, decimals },
    treasury: contracts.AgentHubTimelock.address,
    emergencySafe: address("EmergencySafe"),
    accountAbstraction: {
      entryPoint: address("EntryPoint"),
      simple7702Account: address("Simple7702Account"),
      simpleAccountFactory: address("SimpleAccountFactory"),
      paymaster: { address: paymaster, startBlock: paymasterBlock },
    },
    erc8004: { identityRegistry: address("IdentityRegistry"), reputationRegistry: address("ReputationRegistry") },
    startBlock: Math.min(...Object.values(contracts).map((c) => c.startBlock)),
    contracts,
    deployedAt: new Date().toISOString(),
  });
}

/** The USDC a live deployment used (a module parameter, not a future): the vault's immutable `usdc()`. */
async function deployedUsdc(rpcUrl: string, vault: Address): Promise<string> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  return client.readContract({
    address: vault,
    abi: parseAbi(["function usdc() view returns (address)"]),
    functionName: "usdc",
  });
}

// The local stack's deployment: the same Ignition module `hardhat ignition deploy` runs
// (ignition/modules/AgentHubLocal.ts with ignition/parameters/localhost.json), executed in process against the
// stack's fresh Hardhat node, then exported to deployments/<network>.json for the indexer, relayer and API.
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import type { Deployments } from "@agenthub/common";
import { readDeploymentParameters } from "@nomicfoundation/hardhat-ignition/helpers";
import { DeploymentResultType, deploy } from "@nomicfoundation/ignition-core";
import { type Address, isAddressEqual } from "viem";
import AgentHubLocal from "../../ignition/modules/AgentHubLocal.ts";
import { repoRoot } from "./chain.ts";
import { compiledArtifacts, deploymentsFromIgnition, httpProvider } from "./ignition.ts";

export const LOCAL_PARAMETERS_FILE = join(repoRoot, "ignition", "parameters", "localhost.json");

export interface DeployOptions {
  network: string;
  /** A local node whose first unlocked account deploys (Hardhat's development account #0). */
  rpcUrl: string;
  /** The relayer the stack runs: must be the `relayer` of the parameters file. */
  relayer: Address;
  /** Where Ignition keeps this deployment's journal (emptied first: the local chain is new on every start). */
  deploymentDir: string;
  /** The key approving gas sponsorships (the stack's generated paymaster signer), instead of the file's. */
  paymasterSigner?: Address;
  outFile?: string;
  log?: (msg: string) => void;
}

export async function deployLocal(opts: DeployOptions): Promise<Deployments> {
  const log = opts.log ?? (() => {});
  const parameters = await readDeploymentParameters(LOCAL_PARAMETERS_FILE);
  const relayer = (parameters[AgentHubLocal.id] as { relayer?: Address } | undefined)?.relayer;
  if (!relayer || !isAddressEqual(relayer, opts.relayer)) {
    throw new Error(`${LOCAL_PARAMETERS_FILE} names relayer ${relayer}, the stack runs ${opts.relayer}`);
  }
  if (opts.paymasterSigner) {
    (parameters[AgentHubLocal.id] as Record<string, unknown>).paymasterSigner = opts.paymasterSigner;
  }
  const provider = httpProvider(opts.rpcUrl);
  rmSync(opts.deploymentDir, { recursive: true, force: true });
  mkdirSync(opts.deploymentDir, { recursive: true });
  const result = await deploy({
    config: { blockPollingInterval: 20 },
    provider,
    artifactResolver: compiledArtifacts(),
    ignitionModule: AgentHubLocal,
    deploymentParameters: parameters,
    accounts: (await provider.request({ method: "eth_accounts" })) as string[],
    deploymentDir: opts.deploymentDir,
  });
  if (result.type !== DeploymentResultType.SUCCESSFUL_DEPLOYMENT) {
    throw new Error(`Ignition deployment failed: ${JSON.stringify(result, null, 2)}`);
  }
  log(`ignition   ${Object.keys(result.contracts).length} contracts (module ${AgentHubLocal.id})`);
  const deployments = await deploymentsFromIgnition({
    deploymentDir: opts.deploymentDir,
    moduleId: AgentHubLocal.id,
    network: opts.network,
    rpcUrl: opts.rpcUrl,
  });
  if (opts.outFile) writeDeployments(opts.outFile, deployments);
  return deployments;
}

export function writeDeployments(file: string, deployments: Deployments): void {
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(deployments, null, 2)}\n`);
}

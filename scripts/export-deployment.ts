// Writes deployments/<network>.json (what the indexer, relayer and API read) from an Ignition deployment folder
// made by `hardhat ignition deploy` (see docs/deploy.md).
//   RPC_URL=https://sepolia.base.org pnpm run deployment:export -- --deployment-id base-sepolia --network baseSepolia
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parseEnv } from "@agenthub/common";
import { z } from "zod";
import { repoRoot } from "./lib/chain.ts";
import { writeDeployments } from "./lib/deploy.ts";
import { deploymentsFromIgnition } from "./lib/ignition.ts";

const { values } = parseArgs({
  options: {
    "deployment-id": { type: "string", default: "base-sepolia" },
    network: { type: "string", default: "baseSepolia" },
    module: { type: "string", default: "AgentHub" },
  },
});
const env = parseEnv(z.object({ RPC_URL: z.string().url() }));
const deploymentDir = join(repoRoot, "ignition", "deployments", values["deployment-id"]);
const outFile = join(repoRoot, "deployments", `${values.network}.json`);
const deployments = await deploymentsFromIgnition({
  deploymentDir,
  moduleId: values.module,
  network: values.network,
  rpcUrl: env.RPC_URL,
});
writeDeployments(outFile, deployments);
console.log(
  `chain ${deployments.chainId}: ${Object.keys(deployments.contracts).length} contracts written to ${outFile}`,
);

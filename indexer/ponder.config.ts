import { loadDeployments } from "@agenthub/common";
import {
  AgentHubGovernorAbi,
  AgentHubTokenAbi,
  AgentIdentityAbi,
  InsurancePoolAbi,
  RunEscrowAbi,
  StakeVaultAbi,
} from "@agenthub/common/generated/abis";
import { createConfig } from "ponder";
import { parseAbi, zeroAddress } from "viem";
import { loadIndexerEnv } from "./env.ts";

const env = loadIndexerEnv();

// Addresses and start blocks come from the deploy script's output, never from hand-edited constants.
const deployments = loadDeployments(env.DEPLOYMENTS_FILE);
const local = env.LOCAL_CHAIN;
/**
 * Ponder limits its requests per endpoint on the client (20/s at first, +5% per 10 s of near-full use), tuned for
 * hosted providers. A local chain polled every 100 ms with a block per transaction needs more: over the limit, each
 * request waits for the next second (a ~500 ms stall about once a second: indexer lag's whole tail). The local node
 * has no such limit, so it is named as several endpoints, each with its own allowance.
 */
const LOCAL_RPC_LANES = 8;
const rpc = env.RPC_URLS ?? (local ? Array.from({ length: LOCAL_RPC_LANES }, () => env.RPC_URL) : env.RPC_URL);
const aa = deployments.accountAbstraction;

/** The EntryPoint event that names each UserOperation's sender (ERC-4337 v0.8). */
const entryPointAbi = parseAbi([
  "event UserOperationEvent(bytes32 indexed userOpHash, address indexed sender, address indexed paymaster, uint256 nonce, bool success, uint256 actualGasCost, uint256 actualGasUsed)",
]);

const contract = <A>(abi: A, name: keyof typeof deployments.contracts) => ({
  chain: "agenthub" as const,
  abi,
  address: deployments.contracts[name].address,
  startBlock: deployments.contracts[name].startBlock,
});

export default createConfig({
  database: { kind: "postgres", connectionString: env.DATABASE_URL },
  chains: {
    agenthub: {
      id: deployments.chainId,
      rpc,
      // Local chains mine on demand: poll fast.
      pollingInterval: local ? 100 : 2_000, // Ponder's minimum is 100 ms
      disableCache: local,
    },
  },
  contracts: {
    AgentIdentity: contract(AgentIdentityAbi, "AgentIdentity"),
    StakeVault: contract(StakeVaultAbi, "StakeVault"),
    RunEscrow: contract(RunEscrowAbi, "RunEscrow"),
    InsurancePool: contract(InsurancePoolAbi, "InsurancePool"),
    AgentHubToken: contract(AgentHubTokenAbi, "AgentHubToken"),
    AgentHubGovernor: contract(AgentHubGovernorAbi, "AgentHubGovernor"),
    // Every UserOperation since AgentHub's paymaster exists: its sender is the actor of the AgentHub events the
    // operation emitted (the transaction's sender is only the bundler). A deployments file without account
    // abstraction watches the zero address (no logs).
    EntryPoint: {
      chain: "agenthub" as const,
      abi: entryPointAbi,
      address: aa?.entryPoint ?? zeroAddress,
      startBlock: aa?.paymaster.startBlock ?? deployments.startBlock,
    },
  },
});

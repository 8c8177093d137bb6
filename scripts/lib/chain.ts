// Local Hardhat (EDR) node with chain id 84532 (Base Sepolia's), started as a child process.
import { join } from "node:path";
import { CREATE2_DEPLOYER, CREATE2_DEPLOYER_CODE } from "../../ignition/account-abstraction.ts";
import { erc8004LocalCode } from "../../ignition/erc8004.ts";
import { FatalWait, type Managed, rpcCall, startProcess, waitFor } from "./process.ts";

export const repoRoot = new URL("../..", import.meta.url).pathname;

/**
 * Hardhat's well-known development accounts (public test keys, never used outside local chains), in the roles
 * ignition/parameters/localhost.json gives them: #0 deploys (and then holds nothing), #1 relays, #2 holds the
 * local community allocation of AHUB (35M: enough votes to pass proposals alone; tests hand it out), #3-#7 own
 * the emergency 3-of-5 Safe.
 */
export const devAccounts = {
  deployer: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  relayer: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
  /** Hardhat's development account #10: ARBITER_ROLE on the local RunEscrow (ignition/parameters/localhost.json). */
  arbiter: "0xf214f2b2cd398c806f84e317254e0f0b801d0643303237d97a22a48e01628897",
  governanceHolder: "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a",
  safeOwners: [
    "0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6",
    "0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a",
    "0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba",
    "0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e",
    "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356",
  ],
} as const;

export async function startHardhatNode(opts: { port: number; quiet?: boolean }): Promise<Managed & { rpcUrl: string }> {
  const bin = join(repoRoot, "node_modules", ".bin", "hardhat");
  const node = startProcess("chain", bin, ["node", "--port", String(opts.port), "--chain-id", "84532"], {
    cwd: repoRoot,
    quiet: opts.quiet ?? true,
  });
  const rpcUrl = `http://127.0.0.1:${opts.port}`;
  await waitFor("hardhat node", async () => {
    if (node.child.exitCode !== null) throw new FatalWait(`hardhat node exited with ${node.child.exitCode}`);
    return (await rpcCall(rpcUrl, "eth_chainId")) as string;
  });
  // The deterministic CREATE2 deployer every chain has but a fresh Hardhat node lacks: the local Ignition module
  // deploys the canonical ERC-4337 contracts through it.
  await rpcCall(rpcUrl, "hardhat_setCode", [CREATE2_DEPLOYER, CREATE2_DEPLOYER_CODE]);
  await installErc8004Registries(rpcUrl);
  return { ...node, rpcUrl };
}

/**
 * AgentHub's ERC-8004 registries at the canonical Base Sepolia addresses (ignition/erc8004.ts): the runtime code
 * each creation code answers to `eth_call`, installed with `hardhat_setCode` (no transaction, so the deployer's
 * nonce and every later address stay as they were).
 */
export async function installErc8004Registries(rpcUrl: string): Promise<void> {
  // Loaded here, not at the top: the ABI generator imports this module before the bytecode exists.
  const { IdentityRegistryBytecode, ReputationRegistryBytecode } = await import("@agenthub/common/generated/bytecode");
  const code = erc8004LocalCode({ identity: IdentityRegistryBytecode, reputation: ReputationRegistryBytecode });
  for (const { address, creationCode } of code) {
    const runtime = (await rpcCall(rpcUrl, "eth_call", [{ data: creationCode }, "latest"])) as string;
    if (!runtime || runtime === "0x") throw new Error(`no runtime code for the ERC-8004 registry at ${address}`);
    await rpcCall(rpcUrl, "hardhat_setCode", [address, runtime]);
  }
}

/** Moves chain time forward with evm_increaseTime + evm_mine (hardhat_mine breaks Ponder's reorg checks). */
export async function increaseTime(rpcUrl: string, seconds: number): Promise<void> {
  await rpcCall(rpcUrl, "evm_increaseTime", [seconds]);
  await rpcCall(rpcUrl, "evm_mine", []);
}

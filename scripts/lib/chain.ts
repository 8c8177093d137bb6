// Local Hardhat (EDR) node with chain id 84532 (Base Sepolia's), started as a child process.
import { join } from "node:path";
import { FatalWait, type Managed, rpcCall, startProcess, waitFor } from "./process.ts";

export const repoRoot = new URL("../..", import.meta.url).pathname;

/** Hardhat's well-known development accounts (public test keys, never used outside local chains). */
export const devAccounts = {
  deployer: "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
  relayer: "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d",
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
  return { ...node, rpcUrl };
}

/** Moves chain time forward with evm_increaseTime + evm_mine (hardhat_mine breaks Ponder's reorg checks). */
export async function increaseTime(rpcUrl: string, seconds: number): Promise<void> {
  await rpcCall(rpcUrl, "evm_increaseTime", [seconds]);
  await rpcCall(rpcUrl, "evm_mine", []);
}

// The ERC-4337 bundler of the local stack: Pimlico's Alto (from node_modules, nothing downloaded) against the local
// Hardhat node, on loopback only, stopped with the other services.
import { join } from "node:path";
import type { Address, Hex } from "viem";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { repoRoot } from "./chain.ts";
import { FatalWait, type Managed, rpcCall, startProcess, waitFor } from "./process.ts";

/** Alto binds 0.0.0.0; this preload moves its listener to 127.0.0.1. */
const loopbackOnly = new URL("./loopback-only.mjs", import.meta.url).pathname;

export interface BundlerOptions {
  rpcUrl: string;
  entryPoint: Address;
  port: number;
  quiet?: boolean;
  signal?: AbortSignal;
}

/** ETH given to the bundler's fresh executor and utility keys on the local chain (hardhat_setBalance). */
const LOCAL_EXECUTOR_BALANCE = 10n ** 21n; // 1,000 ETH

/**
 * Starts Alto for `entryPoint`. Its executor keys are new on every start and funded with hardhat_setBalance, so the
 * bundler never shares a nonce lane with the relayer or the deployer. `--safe-mode false`: the EDR node has no
 * JavaScript tracer, so ERC-7562 validation rules are not checked locally (public bundlers check them).
 */
export async function startBundler(opts: BundlerOptions): Promise<Managed & { url: string }> {
  const executor = generatePrivateKey();
  const utility = generatePrivateKey();
  for (const key of [executor, utility] as Hex[]) {
    await rpcCall(opts.rpcUrl, "hardhat_setBalance", [
      privateKeyToAccount(key).address,
      `0x${LOCAL_EXECUTOR_BALANCE.toString(16)}`,
    ]);
  }
  const proc = startProcess(
    "bundler",
    join(repoRoot, "node_modules", ".bin", "alto"),
    [
      "--entrypoints",
      opts.entryPoint,
      "--executor-private-keys",
      executor,
      "--utility-private-key",
      utility,
      "--rpc-url",
      opts.rpcUrl,
      "--port",
      String(opts.port),
      "--safe-mode",
      "false",
      // An operation the chain refuses after simulation is dropped instead of resent forever.
      "--max-resubmits",
      "3",
      // The local node mines on demand: poll for receipts and bundle without waiting for 1 s blocks.
      "--block-time",
      "100",
      "--min-bundle-interval",
      "20",
      "--log-level",
      "warn",
    ],
    { cwd: repoRoot, env: { NODE_OPTIONS: `--import ${loopbackOnly}` }, quiet: opts.quiet },
  );
  const url = `http://127.0.0.1:${opts.port}`;
  try {
    await waitFor(
      "bundler",
      async () => {
        if (proc.child.exitCode !== null) throw new FatalWait(`bundler exited with ${proc.child.exitCode}`);
        const entryPoints = (await rpcCall(url, "eth_supportedEntryPoints")) as string[];
        return entryPoints.some((a) => a.toLowerCase() === opts.entryPoint.toLowerCase()) || undefined;
      },
      { timeoutMs: 60_000, intervalMs: 100, signal: opts.signal },
    );
  } catch (error) {
    await proc.stop();
    throw error;
  }
  return { ...proc, url };
}

import { defineChain, fallback, http, type Transport } from "viem";

export const CHAIN_ID = 84532;

/** Most identities one AgentIdentity.mintBatch carries: the API's batches and the relayer's bound (well under a block). */
export const MAX_MINT_BATCH = 50;

/** Base Sepolia's id; locally the Hardhat node runs with the same id so signatures carry production domains. */
export function agentHubChain(rpcUrl: string) {
  return defineChain({
    id: CHAIN_ID,
    name: "AgentHub (Base Sepolia id)",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

/** The JSON-RPC endpoints to use: `RPC_URLS` (comma list, in order of preference) when given, else `RPC_URL`. */
export function rpcUrls(env: { RPC_URL: string; RPC_URLS?: string[] }): string[] {
  return env.RPC_URLS?.length ? env.RPC_URLS : [env.RPC_URL];
}

/** One endpoint: plain HTTP; several: viem's fallback (the next one answers when a node is down or erroring). */
export function rpcTransport(urls: string[], opts: { timeoutMs?: number } = {}): Transport {
  const transports = urls.map((url) => http(url, { timeout: opts.timeoutMs ?? 10_000 }));
  return transports.length === 1 ? transports[0]! : fallback(transports, { rank: false, retryCount: 1 });
}

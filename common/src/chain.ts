import { defineChain } from "viem";

export const CHAIN_ID = 84532;

/** Base Sepolia's id; locally the Hardhat node runs with the same id so signatures carry production domains. */
export function agentHubChain(rpcUrl: string) {
  return defineChain({
    id: CHAIN_ID,
    name: "AgentHub (Base Sepolia id)",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [rpcUrl] } },
  });
}

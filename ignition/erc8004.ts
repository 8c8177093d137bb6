// ERC-8004 ("Trustless Agents") registries every AgentHub deployment points at: the chain's IdentityRegistry and
// ReputationRegistry singletons, given as module parameters (`erc8004IdentityRegistry`,
// `erc8004ReputationRegistry`) whose defaults are the canonical Base Sepolia addresses.
//   - live networks: the existing singletons (the defaults, or the parameters for another chain);
//   - local chains: AgentHub's own implementation (contracts/erc8004) placed at those same canonical addresses
//     before the module runs (`erc8004LocalCode`, installed by scripts/lib/chain.ts), because agent0-sdk 1.7.1
//     reads agents of chain 84532 at its built-in canonical IdentityRegistry whatever `registryOverrides` says
//     (docs/erc8004.md, docs/decisions.md "ERC-8004 registries").
import type { IgnitionModuleBuilder } from "@nomicfoundation/ignition-core";
import { type Address, encodeAbiParameters, type Hex } from "viem";

/** The Base Sepolia (84532) testnet singletons the agent0 subgraph, agent0-sdk and 8004 explorers index. */
export const CANONICAL_ERC8004 = {
  identityRegistry: "0x8004A818BFB912233c491871b3d84c89A494BD9e",
  reputationRegistry: "0x8004B663056A597Dffe9eCcC1965A193B7388713",
} as const satisfies Record<string, Address>;

/** The registries at the addresses the module parameters name (canonical by default). */
export function erc8004Registries(m: IgnitionModuleBuilder) {
  return {
    identityRegistry: m.contractAt(
      "IdentityRegistry",
      m.getParameter<string>("erc8004IdentityRegistry", CANONICAL_ERC8004.identityRegistry),
    ),
    reputationRegistry: m.contractAt(
      "ReputationRegistry",
      m.getParameter<string>("erc8004ReputationRegistry", CANONICAL_ERC8004.reputationRegistry),
    ),
  };
}

/**
 * What a local node needs to hold AgentHub's registries at the canonical addresses: each registry's creation
 * code (constructor arguments appended) to run with `eth_call` — which answers the runtime code, immutables
 * filled — and then install with `hardhat_setCode`. Neither constructor writes storage, so the code alone is the
 * whole contract.
 */
export function erc8004LocalCode(bytecode: { identity: Hex; reputation: Hex }) {
  return [
    { address: CANONICAL_ERC8004.identityRegistry, creationCode: bytecode.identity },
    {
      address: CANONICAL_ERC8004.reputationRegistry,
      creationCode:
        `${bytecode.reputation}${encodeAbiParameters([{ type: "address" }], [CANONICAL_ERC8004.identityRegistry]).slice(2)}` as Hex,
    },
  ] as const;
}

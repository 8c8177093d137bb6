// Live networks (Base Sepolia): Circle's USDC and the canonical Safe 1.4.1 deployment (SafeL2 singleton, proxy
// factory, compatibility fallback handler), all given as parameters; see ignition/parameters/baseSepolia.example.json.
//   npx hardhat ignition deploy ignition/modules/AgentHub.ts --network baseSepolia \
//     --parameters ignition/parameters/baseSepolia.json --deployment-id base-sepolia --verify
import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import SafeProxyFactoryArtifact from "@safe-global/safe-contracts/build/artifacts/contracts/proxies/SafeProxyFactory.sol/SafeProxyFactory.json" with {
  type: "json",
};
import { canonicalAccountAbstraction } from "../account-abstraction.ts";
import { defineAgentHub, safeL2Artifact } from "../define-agenthub.ts";

/** Circle's USDC on Base Sepolia. */
export const BASE_SEPOLIA_USDC = "0x036CbD53842c5426634e7929541eC2318f3dCF7e";

export default buildModule("AgentHub", (m) => {
  const usdc = m.getParameter<string>("usdc", BASE_SEPOLIA_USDC);
  const singleton = m.contractAt("SafeL2", safeL2Artifact, m.getParameter<string>("safeSingleton"));
  const factory = m.contractAt(
    "SafeProxyFactory",
    SafeProxyFactoryArtifact,
    m.getParameter<string>("safeProxyFactory"),
  );
  const fallbackHandler = m.getParameter<string>("safeFallbackHandler");
  return defineAgentHub(m, usdc, { singleton, factory, fallbackHandler }, canonicalAccountAbstraction(m));
});

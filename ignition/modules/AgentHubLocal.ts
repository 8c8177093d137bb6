// Local chains (the stack's Hardhat node, `--network localhost`): a TestUSDC (LocalUSDC: with a blacklist) and a fresh Safe 1.4.1 (SafeL2
// singleton, proxy factory and fallback handler from @safe-global/safe-contracts), then the same contracts and
// wiring as on live networks. The stack runs this module on every start (scripts/lib/deploy.ts).
//   npx hardhat ignition deploy ignition/modules/AgentHubLocal.ts --network localhost \
//     --parameters ignition/parameters/localhost.json --deployment-id local
import { buildModule } from "@nomicfoundation/hardhat-ignition/modules";
import CompatibilityFallbackHandlerArtifact from "@safe-global/safe-contracts/build/artifacts/contracts/handler/CompatibilityFallbackHandler.sol/CompatibilityFallbackHandler.json" with {
  type: "json",
};
import SafeProxyFactoryArtifact from "@safe-global/safe-contracts/build/artifacts/contracts/proxies/SafeProxyFactory.sol/SafeProxyFactory.json" with {
  type: "json",
};
import { installAccountAbstraction } from "../account-abstraction.ts";
import { defineAgentHub, safeL2Artifact } from "../define-agenthub.ts";

export default buildModule("AgentHubLocal", (m) => {
  // TestUSDC with Circle's blacklist (the deployer lists), so the stack exercises the credit fallback; the future
  // keeps the id "TestUSDC" the deployment export reads.
  const usdc = m.contract("LocalUSDC", [], { id: "TestUSDC" });
  const singleton = m.contract("SafeL2", safeL2Artifact);
  const factory = m.contract("SafeProxyFactory", SafeProxyFactoryArtifact);
  const fallbackHandler = m.contract("CompatibilityFallbackHandler", CompatibilityFallbackHandlerArtifact);
  return defineAgentHub(m, usdc, { singleton, factory, fallbackHandler }, installAccountAbstraction(m));
});

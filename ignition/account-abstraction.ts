// ERC-4337 v0.8 / EIP-7702 pieces every AgentHub deployment uses: the canonical EntryPoint, Simple7702Account (the
// implementation an agent's EOA delegates to) and SimpleAccountFactory (fresh smart accounts), all from the
// published @account-abstraction/contracts 0.8.0 artifacts, so they sit at the addresses every wallet, bundler and
// SDK (permissionless) already knows. AgentHub's own piece, the VerifyingPaymaster, is deployed by
// `defineAgentHub` on every network.
//   - local chains: `installAccountAbstraction` deploys the three through the deterministic CREATE2 deployer
//     (0x4e59…956C, whose code the local node gets with hardhat_setCode: scripts/lib/chain.ts) with their canonical
//     salts;
//   - live networks (Base Sepolia): `canonicalAccountAbstraction` references the existing deployments (module
//     parameters with the canonical addresses as defaults).

import EntryPointArtifact from "@account-abstraction/contracts/artifacts/EntryPoint.json" with { type: "json" };
import Simple7702AccountArtifact from "@account-abstraction/contracts/artifacts/Simple7702Account.json" with {
  type: "json",
};
import SimpleAccountFactoryArtifact from "@account-abstraction/contracts/artifacts/SimpleAccountFactory.json" with {
  type: "json",
};
import type { ContractAtFuture, IgnitionModuleBuilder } from "@nomicfoundation/ignition-core";
import { type Address, concatHex, encodeAbiParameters, getContractAddress, type Hex, zeroHash } from "viem";

/** The deterministic deployment proxy (Arachnid's), at the same address on every chain. */
export const CREATE2_DEPLOYER: Address = "0x4e59b44847b379578588920cA78FbF26c0B4956C";
/** Its runtime code: `salt ++ initCode` in calldata, CREATE2, returns the 20-byte address (reverts on failure). */
export const CREATE2_DEPLOYER_CODE: Hex =
  "0x7fffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffe03601600081602082378035828234f58015156039578182fd5b8082525050506014600cf3";

/** The salt eth-infinitism deployed EntryPoint v0.8 with. */
const ENTRY_POINT_SALT: Hex = "0x0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9";

type PublishedArtifact = typeof EntryPointArtifact & { abi: readonly unknown[]; bytecode: Hex };
export const entryPointArtifact = EntryPointArtifact as PublishedArtifact;
export const simple7702AccountArtifact = Simple7702AccountArtifact as unknown as PublishedArtifact;
export const simpleAccountFactoryArtifact = SimpleAccountFactoryArtifact as unknown as PublishedArtifact;

const create2 = (salt: Hex, initCode: Hex) => ({
  salt,
  initCode,
  address: getContractAddress({ opcode: "CREATE2", from: CREATE2_DEPLOYER, salt, bytecode: initCode }),
});

const entryPointDeployment = create2(ENTRY_POINT_SALT, entryPointArtifact.bytecode);
const simple7702Deployment = create2(zeroHash, simple7702AccountArtifact.bytecode);
const factoryDeployment = create2(
  zeroHash,
  concatHex([
    simpleAccountFactoryArtifact.bytecode,
    encodeAbiParameters([{ type: "address" }], [entryPointDeployment.address]),
  ]),
);

/** The canonical v0.8 addresses (equal to viem's `entryPoint08Address` and permissionless' defaults). */
export const CANONICAL = {
  entryPoint: entryPointDeployment.address,
  simple7702Account: simple7702Deployment.address,
  simpleAccountFactory: factoryDeployment.address,
} as const;

export interface AccountAbstraction {
  entryPoint: ContractAtFuture<readonly unknown[]>;
  simple7702Account: ContractAtFuture<readonly unknown[]>;
  simpleAccountFactory: ContractAtFuture<readonly unknown[]>;
}

/** Local chains: deploys the canonical contracts through the CREATE2 deployer (which must hold its code). */
export function installAccountAbstraction(m: IgnitionModuleBuilder): AccountAbstraction {
  const install = (id: string, deployment: { salt: Hex; initCode: Hex }, after = [] as ReturnType<typeof m.send>[]) =>
    m.send(id, CREATE2_DEPLOYER, 0n, concatHex([deployment.salt, deployment.initCode]), { after });
  const entryPointTx = install("Create2_EntryPoint", entryPointDeployment);
  const simple7702Tx = install("Create2_Simple7702Account", simple7702Deployment);
  const factoryTx = install("Create2_SimpleAccountFactory", factoryDeployment, [entryPointTx]);
  return {
    entryPoint: m.contractAt("EntryPoint", entryPointArtifact, CANONICAL.entryPoint, { after: [entryPointTx] }),
    simple7702Account: m.contractAt("Simple7702Account", simple7702AccountArtifact, CANONICAL.simple7702Account, {
      after: [simple7702Tx],
    }),
    simpleAccountFactory: m.contractAt(
      "SimpleAccountFactory",
      simpleAccountFactoryArtifact,
      CANONICAL.simpleAccountFactory,
      { after: [factoryTx] },
    ),
  };
}

/** Live networks: the canonical deployments (parameters, for a chain where they live elsewhere). */
export function canonicalAccountAbstraction(m: IgnitionModuleBuilder): AccountAbstraction {
  return {
    entryPoint: m.contractAt("EntryPoint", entryPointArtifact, m.getParameter("entryPoint", CANONICAL.entryPoint)),
    simple7702Account: m.contractAt(
      "Simple7702Account",
      simple7702AccountArtifact,
      m.getParameter("simple7702Account", CANONICAL.simple7702Account),
    ),
    simpleAccountFactory: m.contractAt(
      "SimpleAccountFactory",
      simpleAccountFactoryArtifact,
      m.getParameter("simpleAccountFactory", CANONICAL.simpleAccountFactory),
    ),
  };
}

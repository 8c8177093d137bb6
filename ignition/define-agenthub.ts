// The one deployment definition of AgentHub: contracts, role wiring, the emergency Safe and the hand-over to
// governance. `modules/AgentHub.ts` (live networks: existing USDC and the canonical Safe 1.4.1 deployment) and
// `modules/AgentHubLocal.ts` (TestUSDC and a fresh Safe singleton + proxy factory) both build through `defineAgentHub`;
// `hardhat ignition deploy` and the local stack (scripts/lib/deploy.ts) run these same modules.
//
// Custody after deployment (docs/decisions.md, "Roles and custody", holds the table a test checks on chain):
//   - the timelock (governed by AHUB holders through the Governor) holds DEFAULT_ADMIN_ROLE everywhere: every
//     protocol parameter, role grant and treasury change is a proposal;
//   - the emergency Safe (3 of 5) and the timelock hold PAUSER_ROLE: pausing moves no funds;
//   - the relayer keeps its operational roles (minting, funding runs with posters' permits, moderation slashes); it
//     acts for posters and agent owners only with their EIP-712 consent, verified by the escrow;
//   - disputes are resolved by ARBITER_ROLE: the timelock and the `arbiter` parameter (a dispute desk's Safe or
//     key), never the relayer;
//   - the deployer renounces every role it held for the wiring.
import type {
  CallableContractFuture,
  ContractFuture,
  Future,
  IgnitionModuleBuilder,
  ModuleParameterRuntimeValue,
} from "@nomicfoundation/ignition-core";
import SafeL2Artifact from "@safe-global/safe-contracts/build/artifacts/contracts/SafeL2.sol/SafeL2.json" with {
  type: "json",
};
import { keccak256, toBytes, zeroAddress, zeroHash } from "viem";
import type { AccountAbstraction } from "./account-abstraction.ts";
import { erc8004Registries } from "./erc8004.ts";

const role = (name: string) => keccak256(toBytes(name));
export const ROLES = {
  DEFAULT_ADMIN: zeroHash,
  RELAYER: role("RELAYER_ROLE"),
  SLASHER: role("SLASHER_ROLE"),
  ESCROW: role("ESCROW_ROLE"),
  SPONSOR: role("SPONSOR_ROLE"),
  ARBITER: role("ARBITER_ROLE"),
  PAUSER: role("PAUSER_ROLE"),
  PROPOSER: role("PROPOSER_ROLE"),
  CANCELLER: role("CANCELLER_ROLE"),
  EXECUTOR: role("EXECUTOR_ROLE"),
} as const;

const TOKEN = 10n ** 18n;
/** Default split of the 100,000,000 AHUB (see docs/decisions.md, "Initial token allocation"). */
export const DEFAULT_ALLOCATION = {
  treasury: 40_000_000n * TOKEN,
  community: 35_000_000n * TOKEN,
  team: 25_000_000n * TOKEN,
} as const;

/** Hardhat-compatible artifact of the Safe 1.4.1 L2 singleton, as published in @safe-global/safe-contracts. */
export const safeL2Artifact = SafeL2Artifact as typeof SafeL2Artifact & { abi: readonly unknown[] };

/** A contract the module deploys, or the address of one that exists (a module parameter). */
type AddressSource = ContractFuture<string> | ModuleParameterRuntimeValue<string>;

/**
 * Deploys identity, vault, escrow, insurance pool, token, timelock and governor, creates the emergency Safe from
 * `safe.singleton` + `safe.factory`, wires the roles and hands everything to the timelock. The verifying paymaster
 * (owned by the timelock, approving key `paymasterSigner`) sponsors agents' UserOperations through `aa.entryPoint`;
 * it is deployed with `paymasterStake` wei of the deployer's as its EntryPoint stake (unstake delay
 * `paymasterUnstakeDelay`, a day by default) and `paymasterDeposit` wei into its deposit (0 on live networks: fund
 * it separately). The ERC-8004 registries are referenced, not deployed: parameters `erc8004IdentityRegistry` and
 * `erc8004ReputationRegistry`, canonical Base Sepolia addresses by default (ignition/erc8004.ts).
 */
export function defineAgentHub(
  m: IgnitionModuleBuilder,
  usdc: AddressSource,
  safe: {
    singleton: CallableContractFuture<string>;
    factory: CallableContractFuture<string>;
    fallbackHandler: AddressSource;
  },
  aa: AccountAbstraction,
) {
  const deployer = m.getAccount(0);
  const relayer = m.getParameter<string>("relayer");
  const arbiter = m.getParameter<string>("arbiter");
  const timelockDelay = m.getParameter("timelockDelay", 2n * 24n * 3600n);

  const identity = m.contract("AgentIdentity", [deployer, relayer]);
  // The timelock is the treasury and the admin of everything; the deployer is its admin only until the end.
  const timelock = m.contract("AgentHubTimelock", [timelockDelay, [], [zeroAddress], deployer]);
  const vault = m.contract("StakeVault", [usdc, identity, deployer, timelock]);
  const escrow = m.contract("RunEscrow", [usdc, vault, identity, deployer, relayer, timelock]);
  const insurance = m.contract("InsurancePool", [usdc, escrow, identity, deployer, relayer]);
  // Prepaid subscription balances, escrowed per subscriber; the only sponsor of escrow runs.
  const subscriptions = m.contract("SubscriptionVault", [usdc, escrow, deployer, relayer]);

  // Initial token allocation: treasury (timelock), community and team; must add up to the 100M supply.
  const token = m.contract("AgentHubToken", [
    [timelock, m.getParameter<string>("communityHolder"), m.getParameter<string>("teamHolder")],
    [
      m.getParameter("treasuryAmount", DEFAULT_ALLOCATION.treasury),
      m.getParameter("communityAmount", DEFAULT_ALLOCATION.community),
      m.getParameter("teamAmount", DEFAULT_ALLOCATION.team),
    ],
  ]);
  const governor = m.contract("AgentHubGovernor", [token, timelock]);

  // The emergency multisig: a real Safe proxy (owners, threshold) created through the proxy factory.
  const setup = m.encodeFunctionCall(safe.singleton, "setup", [
    m.getParameter<string[]>("emergencySafeOwners"),
    m.getParameter("emergencySafeThreshold", 3n),
    zeroAddress,
    "0x",
    safe.fallbackHandler,
    zeroAddress,
    0n,
    zeroAddress,
  ]);
  const createSafe = m.call(safe.factory, "createProxyWithNonce", [
    safe.singleton,
    setup,
    m.getParameter("emergencySafeSaltNonce", 0n),
  ]);
  const safeAddress = m.readEventArgument(createSafe, "ProxyCreation", "proxy", { emitter: safe.factory });
  const emergencySafe = m.contractAt("EmergencySafe", safeL2Artifact, safeAddress);

  // Operational roles of the relayer (identity and escrow got RELAYER_ROLE in their constructors).
  const wiring: Future[] = [
    // The escrow's live runs lock stakes (the vault asks it on withdrawals) and it slashes them to a run's poster;
    // moderation slashes (to the treasury, rate limited) are the relayer's.
    m.call(vault, "setRunEscrow", [escrow], { id: "Vault_run_escrow" }),
    m.call(vault, "grantRole", [ROLES.ESCROW, escrow], { id: "Vault_escrow_escrow" }),
    m.call(vault, "grantRole", [ROLES.SLASHER, relayer], { id: "Vault_slasher_relayer" }),
    m.call(vault, "grantRole", [ROLES.RELAYER, relayer], { id: "Vault_relayer" }),
    m.call(escrow, "grantRole", [ROLES.ARBITER, arbiter], { id: "Escrow_arbiter_arbiter" }),
    m.call(escrow, "grantRole", [ROLES.ARBITER, timelock], { id: "Escrow_arbiter_timelock" }),
    m.call(escrow, "grantRole", [ROLES.SPONSOR, subscriptions], { id: "Escrow_sponsor_subscriptions" }),
    m.call(timelock, "grantRole", [ROLES.PROPOSER, governor], { id: "Timelock_proposer_governor" }),
    m.call(timelock, "grantRole", [ROLES.CANCELLER, governor], { id: "Timelock_canceller_governor" }),
  ];
  // Governance and the emergency Safe on every pausable contract; then the deployer steps down.
  const governed = {
    Identity: identity,
    Vault: vault,
    Escrow: escrow,
    Insurance: insurance,
    Subscriptions: subscriptions,
  } as const;
  for (const [name, contract] of Object.entries(governed)) {
    wiring.push(
      m.call(contract, "grantRole", [ROLES.PAUSER, emergencySafe], { id: `${name}_pauser_safe` }),
      m.call(contract, "grantRole", [ROLES.PAUSER, timelock], { id: `${name}_pauser_timelock` }),
      m.call(contract, "grantRole", [ROLES.DEFAULT_ADMIN, timelock], { id: `${name}_admin_timelock` }),
    );
  }
  for (const [name, contract] of Object.entries({ ...governed, Timelock: timelock })) {
    m.call(contract, "renounceRole", [ROLES.DEFAULT_ADMIN, deployer], {
      id: `${name}_renounce_deployer`,
      after: wiring,
    });
  }

  // Gas sponsorship: the approving key is not the relayer's (docs/decisions.md, "Paymaster"). Deployed staked
  // (`paymasterStake` wei locked in the EntryPoint for `paymasterUnstakeDelay` seconds): its validation reads its
  // own storage (the rotatable signer), which ERC-7562 bundlers allow only to staked paymasters (STO-031).
  const verifyingPaymaster = m.contract(
    "VerifyingPaymaster",
    [
      aa.entryPoint,
      m.getParameter<string>("paymasterSigner"),
      timelock,
      m.getParameter("paymasterUnstakeDelay", 86_400n),
    ],
    { value: m.getParameter("paymasterStake", 10n ** 17n) },
  );
  m.call(aa.entryPoint, "depositTo", [verifyingPaymaster], {
    id: "EntryPoint_deposit_paymaster",
    value: m.getParameter("paymasterDeposit", 0n),
  });

  return {
    identity,
    ...erc8004Registries(m),
    vault,
    escrow,
    insurance,
    subscriptions,
    token,
    timelock,
    governor,
    emergencySafe,
    verifyingPaymaster,
    ...aa,
  };
}

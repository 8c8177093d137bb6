// The role table of docs/decisions.md ("Roles and custody") against a chain, and Safe transactions signed by owners.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { Deployments } from "@agenthub/common";
import {
  type Address,
  encodeFunctionData,
  getAddress,
  type Hex,
  keccak256,
  type PublicClient,
  parseAbi,
  parseAbiItem,
  toBytes,
  zeroAddress,
  zeroHash,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { devAccounts } from "../../scripts/lib/chain.ts";

const repoRoot = new URL("../..", import.meta.url).pathname;

/** contract -> role -> holder names, as the table in docs/decisions.md says. */
export type RoleTable = Record<string, Record<string, string[]>>;

export function documentedRoleTable(): RoleTable {
  const doc = readFileSync(join(repoRoot, "docs", "decisions.md"), "utf8");
  const section = doc.split("\n## Roles and custody\n")[1]?.split("\n## ")[0];
  if (!section) throw new Error('docs/decisions.md has no "Roles and custody" section');
  const table: RoleTable = {};
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((c) => c.trim());
    if (cells.length < 5 || !cells[2]?.endsWith("_ROLE")) continue;
    const [, contract, role, holders] = cells as [string, string, string, string];
    table[contract] ??= {};
    table[contract][role] = holders
      .split(",")
      .map((h) => h.trim())
      .sort();
  }
  return table;
}

const roleGranted = parseAbiItem(
  "event RoleGranted(bytes32 indexed role, address indexed account, address indexed sender)",
);
const roleRevoked = parseAbiItem(
  "event RoleRevoked(bytes32 indexed role, address indexed account, address indexed sender)",
);
export const ROLE_NAMES = [
  "DEFAULT_ADMIN_ROLE",
  "RELAYER_ROLE",
  "SLASHER_ROLE",
  "ESCROW_ROLE",
  "SPONSOR_ROLE",
  "ARBITER_ROLE",
  "PAUSER_ROLE",
  "PROPOSER_ROLE",
  "CANCELLER_ROLE",
  "EXECUTOR_ROLE",
] as const;
const roleName = new Map<Hex, string>(
  ROLE_NAMES.map((n) => [n === "DEFAULT_ADMIN_ROLE" ? zeroHash : keccak256(toBytes(n)), n]),
);

/**
 * Every role of the AccessControl contracts as the chain says: holders replayed from RoleGranted/RoleRevoked
 * (AccessControl is not enumerable), each confirmed with hasRole, and named with `names` (address -> name).
 */
export async function chainRoleTable(
  client: PublicClient,
  deployments: Deployments,
  names: Map<Address, string>,
): Promise<RoleTable> {
  const table: RoleTable = {};
  const contracts = [
    "AgentIdentity",
    "StakeVault",
    "RunEscrow",
    "InsurancePool",
    "SubscriptionVault",
    "AgentHubTimelock",
  ] as const;
  const hasRole = parseAbi(["function hasRole(bytes32 role, address account) view returns (bool)"]);
  for (const contract of contracts) {
    const address = deployments.contracts[contract].address;
    const fromBlock = BigInt(deployments.startBlock);
    const [granted, revoked] = await Promise.all([
      client.getLogs({ address, event: roleGranted, fromBlock }),
      client.getLogs({ address, event: roleRevoked, fromBlock }),
    ]);
    const events = [...granted.map((e) => ({ e, add: true })), ...revoked.map((e) => ({ e, add: false }))].sort(
      (a, b) => Number(a.e.blockNumber - b.e.blockNumber) || a.e.logIndex - b.e.logIndex,
    );
    const holders = new Map<Hex, Set<Address>>();
    for (const { e, add } of events) {
      const set = holders.get(e.args.role!) ?? new Set<Address>();
      if (add) set.add(getAddress(e.args.account!));
      else set.delete(getAddress(e.args.account!));
      holders.set(e.args.role!, set);
    }
    table[contract] = {};
    for (const [role, accounts] of holders) {
      if (accounts.size === 0) continue;
      const name = roleName.get(role) ?? role;
      const list: string[] = [];
      for (const account of accounts) {
        if (!(await client.readContract({ address, abi: hasRole, functionName: "hasRole", args: [role, account] }))) {
          throw new Error(`${contract}: ${account} has a RoleGranted for ${name} but hasRole says no`);
        }
        list.push(account === zeroAddress ? "anyone" : (names.get(account) ?? account));
      }
      table[contract][name] = list.sort();
    }
  }
  return table;
}

/** Names for the addresses the table uses. */
export function roleHolderNames(
  deployments: Deployments,
  relayer: Address,
  arbiter: Address = privateKeyToAccount(devAccounts.arbiter).address,
): Map<Address, string> {
  const names = new Map<Address, string>([
    [getAddress(relayer), "relayer"],
    [getAddress(arbiter), "arbiter"],
  ]);
  for (const name of ["RunEscrow", "SubscriptionVault", "AgentHubTimelock", "AgentHubGovernor"] as const) {
    names.set(deployments.contracts[name].address, name);
  }
  if (deployments.emergencySafe) names.set(deployments.emergencySafe, "EmergencySafe");
  return names;
}

export const safeAbi = parseAbi([
  "function nonce() view returns (uint256)",
  "function getOwners() view returns (address[])",
  "function getThreshold() view returns (uint256)",
  "function execTransaction(address to, uint256 value, bytes data, uint8 operation, uint256 safeTxGas, uint256 baseGas, uint256 gasPrice, address gasToken, address refundReceiver, bytes signatures) payable returns (bool)",
]);

/**
 * execTransaction calldata for a Safe call to `to` with `data`, signed (EIP-712 SafeTx, Safe 1.4.1) by `ownerKeys`.
 * Signatures are ordered by owner address, as the Safe requires.
 */
export async function signedSafeCall(
  client: PublicClient,
  safe: Address,
  to: Address,
  data: Hex,
  ownerKeys: readonly Hex[],
): Promise<Hex> {
  const nonce = await client.readContract({ address: safe, abi: safeAbi, functionName: "nonce" });
  const chainId = await client.getChainId();
  const message = {
    to,
    value: 0n,
    data,
    operation: 0,
    safeTxGas: 0n,
    baseGas: 0n,
    gasPrice: 0n,
    gasToken: zeroAddress,
    refundReceiver: zeroAddress,
    nonce,
  };
  const owners = ownerKeys
    .map((key) => privateKeyToAccount(key))
    .sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1));
  const signatures = await Promise.all(
    owners.map((owner) =>
      owner.signTypedData({
        domain: { chainId, verifyingContract: safe },
        types: {
          SafeTx: [
            { name: "to", type: "address" },
            { name: "value", type: "uint256" },
            { name: "data", type: "bytes" },
            { name: "operation", type: "uint8" },
            { name: "safeTxGas", type: "uint256" },
            { name: "baseGas", type: "uint256" },
            { name: "gasPrice", type: "uint256" },
            { name: "gasToken", type: "address" },
            { name: "refundReceiver", type: "address" },
            { name: "nonce", type: "uint256" },
          ],
        },
        primaryType: "SafeTx",
        message,
      }),
    ),
  );
  return encodeFunctionData({
    abi: safeAbi,
    functionName: "execTransaction",
    args: [to, 0n, data, 0, 0n, 0n, 0n, zeroAddress, zeroAddress, `0x${signatures.map((s) => s.slice(2)).join("")}`],
  });
}

// Deploys the whole AgentHub contract set with viem and returns (and optionally writes) deployments/<network>.json.
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { agentHubChain, type Deployments, deploymentsSchema } from "@agenthub/common";
import * as abis from "@agenthub/common/generated/abis";
import * as bytecode from "@agenthub/common/generated/bytecode";
import {
  type Abi,
  type Address,
  createPublicClient,
  createWalletClient,
  type Hex,
  http,
  keccak256,
  toBytes,
  zeroAddress,
  zeroHash,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";

export const TIMELOCK_DELAY = 2n * 24n * 60n * 60n;
const role = (name: string) => keccak256(toBytes(name));

export interface DeployOptions {
  network: string;
  rpcUrl: string;
  deployerKey: Hex;
  /** The relayer's address: gets the roles for gasless minting, acting for users, slashing and arbitration. */
  relayer: Address;
  /** Existing USDC (Base Sepolia: Circle's). Without it a TestUSDC is deployed. */
  usdc?: { address: Address; name: string; version: string };
  outFile?: string;
  log?: (msg: string) => void;
}

export async function deployAll(opts: DeployOptions): Promise<Deployments> {
  const log = opts.log ?? (() => {});
  const chain = agentHubChain(opts.rpcUrl);
  const account = privateKeyToAccount(opts.deployerKey);
  const publicClient = createPublicClient({ chain, transport: http(opts.rpcUrl) });
  const wallet = createWalletClient({ account, chain, transport: http(opts.rpcUrl) });
  const chainId = await publicClient.getChainId();
  if (chainId !== chain.id) throw new Error(`RPC ${opts.rpcUrl} is chain ${chainId}, expected ${chain.id}`);

  const deployed: Record<string, { address: Address; startBlock: number }> = {};
  async function deploy(name: string, abi: Abi, code: Hex, args: unknown[]): Promise<Address> {
    const hash = await wallet.deployContract({ abi, bytecode: code, args });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success" || !receipt.contractAddress) throw new Error(`deploying ${name} reverted`);
    deployed[name] = { address: receipt.contractAddress, startBlock: Number(receipt.blockNumber) };
    log(`${name} at ${receipt.contractAddress} (block ${receipt.blockNumber}, gas ${receipt.gasUsed})`);
    return receipt.contractAddress;
  }
  async function write(address: Address, abi: Abi, functionName: string, args: unknown[]): Promise<void> {
    const hash = await wallet.writeContract({ address, abi, functionName, args, chain, account });
    const receipt = await publicClient.waitForTransactionReceipt({ hash });
    if (receipt.status !== "success") throw new Error(`${functionName} on ${address} reverted`);
  }

  const deployer = account.address;
  let usdc = opts.usdc;
  if (!usdc) {
    const address = await deploy("TestUSDC", abis.TestUSDCAbi as Abi, bytecode.TestUSDCBytecode, []);
    usdc = { address, name: "USDC", version: "2" };
  }
  const identity = await deploy("AgentIdentity", abis.AgentIdentityAbi as Abi, bytecode.AgentIdentityBytecode, [
    deployer,
    opts.relayer,
  ]);
  // The timelock is the treasury: platform fees and slashes without a wronged poster end up under governance.
  const timelock = await deploy(
    "AgentHubTimelock",
    abis.AgentHubTimelockAbi as Abi,
    bytecode.AgentHubTimelockBytecode,
    [TIMELOCK_DELAY, [], [zeroAddress], deployer],
  );
  const vault = await deploy("StakeVault", abis.StakeVaultAbi as Abi, bytecode.StakeVaultBytecode, [
    usdc.address,
    identity,
    deployer,
    timelock,
  ]);
  const escrow = await deploy("RunEscrow", abis.RunEscrowAbi as Abi, bytecode.RunEscrowBytecode, [
    usdc.address,
    vault,
    identity,
    deployer,
    opts.relayer,
    timelock,
  ]);
  await deploy("InsurancePool", abis.InsurancePoolAbi as Abi, bytecode.InsurancePoolBytecode, [
    usdc.address,
    escrow,
    identity,
    deployer,
    opts.relayer,
  ]);
  const token = await deploy("AgentHubToken", abis.AgentHubTokenAbi as Abi, bytecode.AgentHubTokenBytecode, [
    [deployer],
    [100_000_000n * 10n ** 18n],
  ]);
  const governor = await deploy(
    "AgentHubGovernor",
    abis.AgentHubGovernorAbi as Abi,
    bytecode.AgentHubGovernorBytecode,
    [token, timelock],
  );

  const vaultAbi = abis.StakeVaultAbi as Abi;
  await write(vault, vaultAbi, "grantRole", [role("ESCROW_ROLE"), escrow]);
  await write(vault, vaultAbi, "grantRole", [role("SLASHER_ROLE"), opts.relayer]);
  await write(vault, vaultAbi, "grantRole", [role("RELAYER_ROLE"), opts.relayer]);
  await write(escrow, abis.RunEscrowAbi as Abi, "grantRole", [role("ARBITER_ROLE"), opts.relayer]);
  // DEFAULT_ADMIN_ROLE is bytes32(0); renouncing it leaves the governor as the only way to change the timelock.
  const timelockAbi = abis.AgentHubTimelockAbi as Abi;
  await write(timelock, timelockAbi, "grantRole", [role("PROPOSER_ROLE"), governor]);
  await write(timelock, timelockAbi, "grantRole", [role("CANCELLER_ROLE"), governor]);
  await write(timelock, timelockAbi, "renounceRole", [zeroHash, deployer]);

  const startBlock = Math.min(...Object.values(deployed).map((d) => d.startBlock));
  const result = deploymentsSchema.parse({
    network: opts.network,
    chainId,
    usdc: { ...usdc, decimals: 6 },
    treasury: timelock,
    startBlock,
    contracts: deployed,
    deployedAt: new Date().toISOString(),
  });
  if (opts.outFile) {
    mkdirSync(dirname(opts.outFile), { recursive: true });
    writeFileSync(opts.outFile, `${JSON.stringify(result, null, 2)}\n`);
  }
  return result;
}

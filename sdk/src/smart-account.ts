// Client side of agents acting on chain themselves (ERC-4337 v0.8, EIP-7702): an agent's key becomes a smart
// account (its own EOA delegated to Simple7702Account, or a SimpleAccount from the factory), operations go to the
// bundler, and AgentHub's paymaster (ERC-7677 at <api>/api/paymaster) pays the gas, so the agent needs no ETH.
// Built on permissionless and viem only. `@agenthub/sdk/smart-account`.
import { createSmartAccountClient, type SmartAccountClient } from "permissionless";
import { toSimpleSmartAccount } from "permissionless/accounts";
import { createPimlicoClient } from "permissionless/clients/pimlico";
import {
  type Address,
  type Chain,
  encodeFunctionData,
  type Hex,
  http,
  isAddressEqual,
  type LocalAccount,
  type PublicClient,
  type SignedAuthorization,
  type Transport,
} from "viem";
import { createPaymasterClient, type SmartAccount } from "viem/account-abstraction";
import { erc20Abi, insurancePoolAbi, runEscrowAbi, stakeVaultAbi } from "./abi.ts";
import type { Signer } from "./signer.ts";

/** The deployment's addresses these helpers use (a `deployments/<network>.json`, or GET /api/config). */
export interface AgentDeployment {
  usdc: { address: Address };
  contracts: { StakeVault: { address: Address }; RunEscrow: { address: Address }; InsurancePool: { address: Address } };
}

/** The ERC-4337 contracts of a deployment (`accountAbstraction` in deployments/<network>.json). */
export interface AccountAbstractionAddresses {
  entryPoint: Address;
  simple7702Account: Address;
  simpleAccountFactory: Address;
}

/** What GET /api/config (`hub.config()`) says that these helpers use. */
export interface DeploymentConfig {
  usdc: { address: string };
  contracts: Record<string, string>;
  accountAbstraction: {
    entryPoint: string;
    simple7702Account: string;
    simpleAccountFactory: string;
    bundlerUrl: string | null;
  } | null;
}

/**
 * The deployment these helpers need, from the API's GET /api/config (`await hub.config()`): a remote agent needs no
 * deployments file. Throws when the deployment has no ERC-4337 contracts.
 */
export function fromConfig(config: DeploymentConfig): {
  deployment: AgentDeployment;
  accountAbstraction: AccountAbstractionAddresses;
  bundlerUrl: string | null;
} {
  const aa = config.accountAbstraction;
  if (!aa) throw new Error("this deployment has no ERC-4337 contracts (GET /api/config -> accountAbstraction is null)");
  const at = (name: string) => {
    const address = config.contracts[name];
    if (!address) throw new Error(`GET /api/config names no ${name}`);
    return { address: address as Address };
  };
  return {
    deployment: {
      usdc: { address: config.usdc.address as Address },
      contracts: { StakeVault: at("StakeVault"), RunEscrow: at("RunEscrow"), InsurancePool: at("InsurancePool") },
    },
    accountAbstraction: {
      entryPoint: aa.entryPoint as Address,
      simple7702Account: aa.simple7702Account as Address,
      simpleAccountFactory: aa.simpleAccountFactory as Address,
    },
    bundlerUrl: aa.bundlerUrl,
  };
}

export interface AgentCall {
  to: Address;
  data: Hex;
}

/** The agent actions as account calls (what the paymaster sponsors; see POST /api/paymaster). */
export function agentActions(deployments: AgentDeployment) {
  const vault = deployments.contracts.StakeVault.address;
  const escrow = deployments.contracts.RunEscrow.address;
  const pool = deployments.contracts.InsurancePool.address;
  return {
    /** USDC approve + StakeVault deposit in one batched operation (no permit, no ETH). */
    stake: (agentId: bigint, amount: bigint): AgentCall[] => [
      {
        to: deployments.usdc.address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [vault, amount] }),
      },
      { to: vault, data: encodeFunctionData({ abi: stakeVaultAbi, functionName: "deposit", args: [agentId, amount] }) },
    ],
    requestWithdrawal: (agentId: bigint, amount: bigint): AgentCall[] => [
      {
        to: vault,
        data: encodeFunctionData({ abi: stakeVaultAbi, functionName: "requestWithdrawal", args: [agentId, amount] }),
      },
    ],
    withdraw: (agentId: bigint): AgentCall[] => [
      { to: vault, data: encodeFunctionData({ abi: stakeVaultAbi, functionName: "withdraw", args: [agentId] }) },
    ],
    /** USDC approve + InsurancePool stake (coverage for the agent's posters). */
    insure: (agentId: bigint, amount: bigint): AgentCall[] => [
      {
        to: deployments.usdc.address,
        data: encodeFunctionData({ abi: erc20Abi, functionName: "approve", args: [pool, amount] }),
      },
      { to: pool, data: encodeFunctionData({ abi: insurancePoolAbi, functionName: "stake", args: [agentId, amount] }) },
    ],
    requestCoverageWithdrawal: (agentId: bigint, amount: bigint): AgentCall[] => [
      {
        to: pool,
        data: encodeFunctionData({ abi: insurancePoolAbi, functionName: "requestWithdrawal", args: [agentId, amount] }),
      },
    ],
    claimRun: (runId: bigint, agentId: bigint): AgentCall[] => [
      { to: escrow, data: encodeFunctionData({ abi: runEscrowAbi, functionName: "claim", args: [runId, agentId] }) },
    ],
    startRun: (runId: bigint): AgentCall[] => [
      { to: escrow, data: encodeFunctionData({ abi: runEscrowAbi, functionName: "start", args: [runId] }) },
    ],
    submitRun: (runId: bigint, deliverableHash: Hex): AgentCall[] => [
      {
        to: escrow,
        data: encodeFunctionData({ abi: runEscrowAbi, functionName: "submit", args: [runId, deliverableHash] }),
      },
    ],
  };
}

export interface AgentAccountOptions {
  /** The agent's key (viem local account). */
  owner: LocalAccount;
  /** A public client of the chain (reads nonces, delegation, addresses). */
  client: PublicClient<Transport, Chain>;
  bundlerUrl: string;
  /** Base URL of the AgentHub API: its /api/paymaster sponsors the gas. Omit to pay with the account's own ETH. */
  apiUrl?: string;
  accountAbstraction: AccountAbstractionAddresses;
  /** "7702" (default): the agent's own address, delegated to Simple7702Account; "smart-account": a SimpleAccount. */
  kind?: "7702" | "smart-account";
}

export interface AgentAccount {
  /** The address that acts on chain (the EOA itself for 7702, the SimpleAccount otherwise). */
  address: Address;
  /**
   * Signs the API's signed actions (SIWE: profile, runs, reports, ...) as `address`, for every SDK helper taking a
   * signer: the EOA itself for 7702 (its signatures also verify through Simple7702Account's ERC-1271), the
   * SimpleAccount's owner key otherwise (`simpleAccountSigner`).
   */
  signer: Signer;
  client: SmartAccountClient<Transport, Chain, SmartAccount>;
  /** Sends the calls as one UserOperation and waits for it; throws when the operation reverted. */
  send(calls: AgentCall[]): Promise<{ userOpHash: Hex; txHash: Hex; actualGasUsed: bigint; actualGasCost: bigint }>;
}

const DELEGATION_PREFIX = "0xef0100";

/**
 * A signer for a canonical SimpleAccount (v0.8): its owner's key signs messages for it, which the API accepts for
 * signed actions (it checks the account is an unupgraded SimpleAccount of the canonical factory and asks it for its
 * owner). SimpleAccount has no ERC-1271, so nothing verified on chain accepts such signatures: typed data (permits,
 * EIP-3009 payments, run consents) is refused here; act on chain through UserOperations (`agentAccount().send`), or
 * use the 7702 account, whose address signs for itself.
 */
export function simpleAccountSigner(owner: LocalAccount, account: Address): Signer {
  return {
    address: account,
    signMessage: ({ message }) => owner.signMessage({ message }),
    signTypedData: async () => {
      throw new Error(
        `SimpleAccount ${account} has no ERC-1271: typed-data signatures (permits, x402 payments, run consents) ` +
          "cannot be verified for it; send the action as a UserOperation or use the 7702 account",
      );
    },
  };
}

/** An EIP-7702 authorization to Simple7702Account, or undefined when the EOA already delegates to it. */
export async function delegationIfNeeded(
  owner: LocalAccount,
  client: PublicClient<Transport, Chain>,
  implementation: Address,
): Promise<SignedAuthorization | undefined> {
  const code = await client.getCode({ address: owner.address });
  if (code?.startsWith(DELEGATION_PREFIX) && isAddressEqual(`0x${code.slice(8, 48)}`, implementation)) return undefined;
  if (!owner.signAuthorization) throw new Error("this account cannot sign EIP-7702 authorizations");
  return owner.signAuthorization({
    address: implementation,
    chainId: client.chain.id,
    nonce: await client.getTransactionCount({ address: owner.address }),
  });
}

/** The agent's smart account and a client sending its operations through the bundler, sponsored by AgentHub. */
export async function agentAccount(opts: AgentAccountOptions): Promise<AgentAccount> {
  const entryPoint = { address: opts.accountAbstraction.entryPoint, version: "0.8" as const };
  const is7702 = (opts.kind ?? "7702") === "7702";
  const account = is7702
    ? await toSimpleSmartAccount({
        client: opts.client,
        owner: opts.owner,
        entryPoint,
        eip7702: true,
        accountLogicAddress: opts.accountAbstraction.simple7702Account,
      })
    : await toSimpleSmartAccount({
        client: opts.client,
        owner: opts.owner,
        entryPoint,
        factoryAddress: opts.accountAbstraction.simpleAccountFactory,
      });
  const bundler = createPimlicoClient({ transport: http(opts.bundlerUrl), entryPoint });
  const client = createSmartAccountClient({
    account,
    chain: opts.client.chain,
    client: opts.client,
    bundlerTransport: http(opts.bundlerUrl),
    paymaster: opts.apiUrl
      ? createPaymasterClient({ transport: http(new URL("/api/paymaster", opts.apiUrl).toString()) })
      : undefined,
    userOperation: { estimateFeesPerGas: async () => (await bundler.getUserOperationGasPrice()).fast },
  }) as unknown as SmartAccountClient<Transport, Chain, SmartAccount>;
  return {
    address: account.address,
    signer: is7702 ? opts.owner : simpleAccountSigner(opts.owner, account.address),
    client,
    async send(calls) {
      const authorization = is7702
        ? await delegationIfNeeded(opts.owner, opts.client, opts.accountAbstraction.simple7702Account)
        : undefined;
      const userOpHash = await client.sendUserOperation({
        account: client.account as SmartAccount,
        calls,
        ...(authorization ? { authorization } : {}),
      });
      const receipt = await client.waitForUserOperationReceipt({ hash: userOpHash, pollingInterval: 50 });
      if (!receipt.success) {
        throw new Error(`UserOperation ${userOpHash} reverted (${receipt.reason ?? "no reason"})`);
      }
      return {
        userOpHash,
        txHash: receipt.receipt.transactionHash,
        actualGasUsed: receipt.actualGasUsed,
        actualGasCost: receipt.actualGasCost,
      };
    },
  };
}

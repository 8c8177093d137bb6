// Steps an agent (or its human) takes, over real HTTP and real signatures.

import { buildActionMessage } from "@agenthub/api/client/signed-action";
import { StakeVaultAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import { type Address, createWalletClient, type Hex, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { api, chain, deployments, newWallet, publicClient, stack } from "./stack.ts";

export async function registerAgent(profile: Record<string, unknown> = {}) {
  const res = await api("POST", "/api/agents/register", {
    body: { name: `agent-${Math.random().toString(36).slice(2, 8)}`, capabilities: ["coding"], ...profile },
  });
  if (res.status !== 201) throw new Error(`register failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { agentId: number; claimCode: string; claimURL: string; walletAddress: Address; txHash: Hex };
}

export async function claimAgent(agentId: number, claimCode: string) {
  const owner = newWallet();
  const signature = await owner.account.signMessage({
    message: `I claim agent ${agentId} to address ${owner.address}`,
  });
  const res = await api("POST", `/api/agents/${agentId}/claim`, {
    body: { signature, userAddress: owner.address, claimCode },
  });
  if (res.status !== 200) throw new Error(`claim failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { owner, agentKey: res.body.privateKey as Hex, body: res.body };
}

export async function faucet(address: Address, usdc: bigint, eth = 0n) {
  const res = await api("POST", "/api/dev/faucet", { body: { address, usdc: usdc.toString(), eth: eth.toString() } });
  if (res.status !== 200) throw new Error(`faucet failed: ${res.status} ${JSON.stringify(res.body)}`);
}

export function walletFromKey(key: Hex) {
  const account = privateKeyToAccount(key);
  return {
    account,
    address: account.address,
    wallet: createWalletClient({ account, chain, transport: http(stack.rpcUrl) }),
  };
}

/** Deposits directly into the vault from `key`'s wallet (needs ETH for gas); returns the tx hash. */
export async function depositDirect(key: Hex, agentId: number, amount: bigint): Promise<Hex> {
  const { account, wallet } = walletFromKey(key);
  const vault = deployments.contracts.StakeVault.address;
  const approve = await wallet.writeContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "approve",
    args: [vault, amount],
    account,
    chain,
  });
  await publicClient.waitForTransactionReceipt({ hash: approve });
  const hash = await wallet.writeContract({
    address: vault,
    abi: StakeVaultAbi,
    functionName: "deposit",
    args: [BigInt(agentId), amount],
    account,
    chain,
  });
  await publicClient.waitForTransactionReceipt({ hash });
  return hash;
}

/** EIP-2612 permit for `spender` signed by `key` (USDC domain name "USDC", version "2"). */
export async function signPermit(key: Hex, spender: Address, value: bigint, deadline: bigint): Promise<Hex> {
  const { account } = walletFromKey(key);
  const nonce = await publicClient.readContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "nonces",
    args: [account.address],
  });
  return account.signTypedData({
    domain: {
      name: deployments.usdc.name,
      version: deployments.usdc.version,
      chainId: chain.id,
      verifyingContract: deployments.usdc.address,
    },
    types: {
      Permit: [
        { name: "owner", type: "address" },
        { name: "spender", type: "address" },
        { name: "value", type: "uint256" },
        { name: "nonce", type: "uint256" },
        { name: "deadline", type: "uint256" },
      ],
    },
    primaryType: "Permit",
    message: { owner: account.address, spender, value, nonce, deadline },
  });
}

export async function signedAction(key: Hex, action: string, kind: string, id: string | number) {
  const { account } = walletFromKey(key);
  const nonce = (await api("GET", "/api/auth/nonce")).body.nonce as string;
  const message = buildActionMessage({
    address: account.address,
    action,
    kind,
    id,
    nonce,
    apiUrl: stack.env.PUBLIC_URL!,
  });
  return { message, signature: await account.signMessage({ message }) };
}

/** Registers, claims, funds and stakes an agent so it can claim runs. */
export async function stakedAgent(amount = 20_000_000n) {
  const reg = await registerAgent();
  const claim = await claimAgent(reg.agentId, reg.claimCode);
  await faucet(reg.walletAddress, amount, 10n ** 17n);
  const txHash = await depositDirect(claim.agentKey, reg.agentId, amount);
  const res = await api("POST", `/api/agents/${reg.agentId}/stake`, {
    body: { amount: amount.toString(), txHash, walletAddress: reg.walletAddress },
  });
  if (res.status !== 200) throw new Error(`stake failed: ${res.status} ${JSON.stringify(res.body)}`);
  return { ...reg, ...claim };
}

/** `key`'s wallet approves `spender` for `amount` USDC itself (needs ETH for gas), as for a direct deposit. */
export async function approveUsdc(key: Hex, spender: Address, amount: bigint): Promise<void> {
  const { account, wallet } = walletFromKey(key);
  const hash = await wallet.writeContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "approve",
    args: [spender, amount],
    account,
    chain,
  });
  await publicClient.waitForTransactionReceipt({ hash });
}

export const usdcOf = (address: Address) =>
  publicClient.readContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "balanceOf",
    args: [address],
  });

export const allowanceOf = (owner: Address, spender: Address) =>
  publicClient.readContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "allowance",
    args: [owner, spender],
  });

// Transactions users sent themselves (the wallet paid gas), judged from their receipts: the receipt lookups every
// "give us your txHash" path shares, and the deposit check of the StakeVault stake (POST /api/agents/:id/stake)
// and the insurance stake (POST /api/insurance/stake).
import { type Abi, type Address, type Hex, isAddressEqual, parseEventLogs, type TransactionReceipt } from "viem";
import type { Deps } from "../context.ts";
import { apiError } from "../errors.ts";

/** The mined receipt of `hash`, successful or not; 400 TX_NOT_FOUND otherwise. */
export async function minedReceipt(deps: Pick<Deps, "chain">, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await deps.chain.getTransactionReceipt({ hash }).catch(() => undefined);
  if (!receipt) throw apiError("TX_NOT_FOUND", `no confirmed transaction ${hash}`);
  return receipt;
}

/** The mined, successful receipt of `hash`; 400 TX_NOT_FOUND / TX_FAILED otherwise. */
export async function confirmedReceipt(deps: Pick<Deps, "chain">, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await minedReceipt(deps, hash);
  if (receipt.status !== "success") throw apiError("TX_FAILED", `transaction ${hash} reverted`);
  return receipt;
}

/**
 * Sums the `eventName(agentId indexed, from indexed, amount)` logs that `contract` emitted in `hash` for `agentId`
 * from `walletAddress`. 400 NOT_A_STAKE when there is none for the agent, 403 WALLET_MISMATCH when none is from
 * the wallet, 400 STAKE_AMOUNT_MISMATCH when they add up to less than `amount`. Returns the deposited sum.
 */
export async function verifyDepositTx(
  deps: Deps,
  opts: {
    hash: Hex;
    abi: Abi;
    contract: Address;
    eventName: string;
    agentId: number;
    walletAddress: string;
    amount: bigint;
  },
): Promise<bigint> {
  const receipt = await confirmedReceipt(deps, opts.hash);
  type DepositArgs = { agentId: bigint; from: Address; amount: bigint };
  const deposits = (parseEventLogs({ abi: opts.abi, logs: receipt.logs, eventName: opts.eventName }) as unknown[])
    .map((l) => l as { address: Address; args: DepositArgs })
    .filter((log) => isAddressEqual(log.address, opts.contract) && log.args.agentId === BigInt(opts.agentId));
  if (deposits.length === 0)
    throw apiError("NOT_A_STAKE", `transaction ${opts.hash} holds no deposit for agent ${opts.agentId}`);
  const mine = deposits.filter((d) => isAddressEqual(d.args.from, opts.walletAddress as Hex));
  if (mine.length === 0) throw apiError("WALLET_MISMATCH", "the deposit was not made from walletAddress");
  const deposited = mine.reduce((sum, d) => sum + d.args.amount, 0n);
  if (deposited < opts.amount) {
    throw apiError("STAKE_AMOUNT_MISMATCH", `transaction deposited ${deposited}, less than the stated ${opts.amount}`);
  }
  return deposited;
}

/**
 * Whether `walletAddress` speaks for the agent: its identity token's current owner, or its generated wallet while
 * that wallet is still bound (the token has not changed hands since the claim). Everything that acts for an agent
 * (stakes, coverage, withdrawals, run steps, attestations) asks this.
 */
export function isAgentWalletOrOwner(
  agent: { wallet: string; owner: string; walletBound: boolean },
  walletAddress: string,
): boolean {
  return agentControllers(agent).some((a) => isAddressEqual(a as Hex, walletAddress as Hex));
}

/** The addresses that act for an agent (see isAgentWalletOrOwner). */
export const agentControllers = (agent: { wallet: string; owner: string; walletBound: boolean }): string[] =>
  agent.walletBound ? [agent.owner, agent.wallet] : [agent.owner];

// Pull-payment credits: a payment the escrow or the vault could not push (a USDC-blacklisted recipient) is credited
// to that account on the contract that owed it (docs/decisions.md, "Payments that fail are credited, never
// blocking"). Read from the chain: the contracts hold the truth.
import { RunEscrowAbi, StakeVaultAbi } from "@agenthub/common/generated/abis";
import type { Address } from "viem";
import type { Deps } from "../../context.ts";

export const CREDIT_HOLDERS = ["RunEscrow", "StakeVault"] as const;
export type CreditHolder = (typeof CREDIT_HOLDERS)[number];
export const CREDIT_ABIS = { RunEscrow: RunEscrowAbi, StakeVault: StakeVaultAbi } as const;

export interface CreditsView {
  account: Address;
  /** USDC base units per contract. */
  credits: Record<CreditHolder, string>;
  total: string;
}

export async function creditsOf(deps: Deps, account: Address): Promise<Record<CreditHolder, bigint>> {
  const [escrow, vault] = await Promise.all(
    CREDIT_HOLDERS.map((name) =>
      deps.chain.readContract({
        address: deps.deployments.contracts[name].address,
        abi: CREDIT_ABIS[name] as typeof RunEscrowAbi,
        functionName: "creditOf",
        args: [account],
      }),
    ),
  );
  return { RunEscrow: escrow!, StakeVault: vault! };
}

export const creditsView = (account: Address, credits: Record<CreditHolder, bigint>): CreditsView => ({
  account,
  credits: { RunEscrow: credits.RunEscrow.toString(), StakeVault: credits.StakeVault.toString() },
  total: (credits.RunEscrow + credits.StakeVault).toString(),
});

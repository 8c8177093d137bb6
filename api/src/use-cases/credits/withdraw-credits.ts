// The credited account withdraws its credits with a signed request (withdraw-credit:account:<address>); the relayer
// sends withdrawCredit(account) to each contract that holds some, which pays that account only (and reverts while
// the token still refuses it).
import type { RunEscrowAbi } from "@agenthub/common/generated/abis";
import { type Address, getAddress } from "viem";
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { relayMapped } from "../../lib/relay-mapped.ts";
import { verifySignedBy } from "../guards.ts";
import { CREDIT_ABIS, CREDIT_HOLDERS, type CreditHolder, type CreditsView, creditsOf, creditsView } from "./credits.ts";

export interface WithdrawCreditsParameters {
  account: string;
  message: string;
  signature: string;
}

export interface WithdrawCreditsReturnType extends CreditsView {
  withdrawn: { contract: CreditHolder; amount: string; txHash: string }[];
}

export async function withdrawCredits(deps: Deps, p: WithdrawCreditsParameters): Promise<WithdrawCreditsReturnType> {
  const account: Address = getAddress(p.account);
  await verifySignedBy(deps, p, { action: "withdraw-credit", kind: "account", id: account }, [account], () =>
    apiError("NOT_CREDITED_ACCOUNT", `only ${account} may withdraw its credits`),
  );
  const credits = await creditsOf(deps, account);
  if (credits.RunEscrow === 0n && credits.StakeVault === 0n) {
    throw apiError("NO_CREDIT", `${account} has no credit`);
  }
  const withdrawn: WithdrawCreditsReturnType["withdrawn"] = [];
  for (const contract of CREDIT_HOLDERS) {
    if (credits[contract] === 0n) continue;
    // Sequential: a still-blacklisted account fails on the first and nothing else is attempted.
    const result = await relayMapped(
      deps,
      contract,
      CREDIT_ABIS[contract] as typeof RunEscrowAbi,
      "withdrawCredit",
      [account],
      undefined,
      {
        Blacklisted: "ACCOUNT_BLOCKED",
        RunEscrowNoCredit: "NO_CREDIT",
        StakeVaultNoCredit: "NO_CREDIT",
      },
    );
    withdrawn.push({ contract, amount: credits[contract].toString(), txHash: result.txHash });
  }
  return { ...creditsView(account, await creditsOf(deps, account)), withdrawn };
}

// What failed payments credited to an account, per contract (GET /api/credits/:address).
import type { Address } from "viem";
import type { Deps } from "../../context.ts";
import { type CreditsView, creditsOf, creditsView } from "./credits.ts";

export async function getCredits(deps: Deps, account: Address): Promise<CreditsView> {
  return creditsView(account, await creditsOf(deps, account));
}

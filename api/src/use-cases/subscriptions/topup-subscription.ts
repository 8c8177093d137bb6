// Adding to a subscription's vault balance with the poster's USDC permit; an EXHAUSTED subscription that can pay a
// run is ACTIVE again. Each top-up transaction is recorded once.
import { getAddress } from "viem";
import type { Deps } from "../../context.ts";
import { errors } from "../../errors.ts";
import { verifiedPermit } from "../../lib/permit.ts";
import { recordTopup, type SubscriptionStatus } from "../../stores/subscriptions.ts";
import { wrongState } from "./change-subscription.ts";
import { txAlreadyUsed } from "./create-subscription.ts";
import { authorizePoster, getSubscription } from "./get-subscription.ts";
import { requireUsdc } from "./usdc.ts";
import { relayVault, vault, vaultEvent } from "./vault.ts";

export interface TopupSubscriptionParameters {
  id: number;
  amount: bigint;
  permit: { deadline: number; signature: string };
  message: string;
  signature: string;
}

const OPEN: SubscriptionStatus[] = ["ACTIVE", "PAUSED", "EXHAUSTED"];

export async function topupSubscription(deps: Deps, p: TopupSubscriptionParameters) {
  const row = await authorizePoster(deps, p.id, p, "subscription-topup");
  if (!OPEN.includes(row.status)) throw wrongState(row, "a top-up", OPEN);
  if (p.amount === 0n) throw errors.validation("amount: must be positive");
  const poster = getAddress(row.posterAddress);
  await requireUsdc(deps, poster, p.amount);
  const permit = await verifiedPermit(deps, {
    owner: poster,
    spender: vault(deps).address,
    value: p.amount,
    deadline: BigInt(p.permit.deadline),
    signature: p.permit.signature,
  });
  const result = await relayVault(
    deps,
    "topUpWithPermit",
    [BigInt(row.vaultId!), p.amount, BigInt(p.permit.deadline), permit.v, permit.r, permit.s],
    `subscription-topup:${p.permit.signature.toLowerCase()}`,
    { subscriptionId: BigInt(row.vaultId!) },
  );
  const hash = result.txHash.toLowerCase();
  const funded = vaultEvent(deps, result.logs as never, "SubscriptionFunded");
  const recorded = await recordTopup(deps, {
    id: p.id,
    txHash: hash,
    payer: poster,
    amount: p.amount,
    balanceAfter: (funded?.args.balance as bigint | undefined) ?? 0n,
  });
  if (recorded === "tx-used") throw txAlreadyUsed(hash);
  return { row: await getSubscription(deps, p.id), txHash: hash };
}

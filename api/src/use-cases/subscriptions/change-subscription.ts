// Pausing, resuming and cancelling a subscription: the subscriber's signed request, allowed only from some states,
// relayed to the vault once per signature; the mirror then takes the chain's state (a cancel's refund recorded).
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import { recordRefund, type SubscriptionRow, type SubscriptionStatus } from "../../stores/subscriptions.ts";
import { authorizePoster, getSubscription } from "./get-subscription.ts";
import { relayVault, vaultEvent } from "./vault.ts";

export const wrongState = (row: SubscriptionRow, action: string, allowed: SubscriptionStatus[]) =>
  apiError(
    "INVALID_SUBSCRIPTION_STATE",
    `subscription ${row.id} is ${row.status}; ${action} needs ${allowed.join(" or ")}`,
  );

const CHANGES = {
  pause: { from: ["ACTIVE", "EXHAUSTED"], call: "pauseSubscription" },
  resume: { from: ["PAUSED"], call: "resumeSubscription" },
  cancel: { from: ["ACTIVE", "PAUSED", "EXHAUSTED"], call: "cancelSubscription" },
} as const satisfies Record<string, { from: SubscriptionStatus[]; call: string }>;

export type SubscriptionChange = keyof typeof CHANGES;

export interface ChangeSubscriptionParameters {
  id: number;
  change: SubscriptionChange;
  message: string;
  signature: string;
}

export interface ChangeSubscriptionReturnType {
  row: SubscriptionRow;
  txHash: string;
  /** cancel: what the vault refunded the poster. */
  refunded: bigint;
  /** The poster as the row had it before the change. */
  poster: string;
}

export async function changeSubscription(
  deps: Deps,
  p: ChangeSubscriptionParameters,
): Promise<ChangeSubscriptionReturnType> {
  const { from, call } = CHANGES[p.change];
  const row = await authorizePoster(deps, p.id, p, `subscription-${p.change}`);
  if (!(from as readonly SubscriptionStatus[]).includes(row.status)) {
    throw wrongState(row, p.change, [...from]);
  }
  const result = await relayVault(
    deps,
    call,
    [BigInt(row.vaultId!)],
    `subscription-${p.change}:${p.signature.toLowerCase()}`,
    { subscriptionId: BigInt(row.vaultId!) },
  );
  let refunded = 0n;
  if (p.change === "cancel") {
    const cancelled = vaultEvent(deps, result.logs as never, "SubscriptionCancelled");
    refunded = (cancelled?.args.refund as bigint | undefined) ?? 0n;
    await recordRefund(deps, p.id, refunded, result.txHash);
  }
  return { row: await getSubscription(deps, p.id), txHash: result.txHash, refunded, poster: row.posterAddress };
}

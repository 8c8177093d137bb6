// Opening a subscription: the relayer calls SubscriptionVault.openWithPermit with the poster's EIP-712 consent to
// the terms and a USDC permit of `amount`; the API records the opened subscription once per transaction.
// Checks run in this order and nothing changes when one fails: cadence and reward (400), signature (401),
// poster (403), start, amount, balance, permit and consent (400).
import { subscribeTypedData } from "@agenthub/common/protocol";
import { type Address, getAddress, type Hex } from "viem";
import type { Deps } from "../../context.ts";
import { feeOf } from "../../domain/cadence.ts";
import { apiError } from "../../errors.ts";
import { verifiedPermit } from "../../lib/permit.ts";
import { insertOpenedSubscription, type SubscriptionRow } from "../../stores/subscriptions.ts";
import { verifySignedBy } from "../guards.ts";
import { requireSubscription } from "./get-subscription.ts";
import { checkStart, detect, termsOf } from "./preview-subscription.ts";
import { requireUsdc } from "./usdc.ts";
import { relayVault, syncFromChain, vault, vaultEvent } from "./vault.ts";

export interface CreateSubscriptionParameters {
  instructions: string;
  rewardPerRun: bigint;
  posterAddress: Address;
  amount: bigint;
  startsAt: number;
  consent: { deadline: number; signature: string };
  permit: { deadline: number; signature: string };
  message: string;
  signature: string;
}

export async function createSubscription(deps: Deps, p: CreateSubscriptionParameters) {
  const [now, { feeBps }] = await Promise.all([deps.clock.fresh(), deps.params.fresh()]);
  const { cadence, detected, costs } = detect(p.instructions, p.rewardPerRun, now, feeBps);
  await verifySignedBy(
    deps,
    p,
    { action: "subscription-create", kind: "subscription", id: "new" },
    [p.posterAddress],
    () => apiError("NOT_SUBSCRIPTION_POSTER", "the message must be signed by posterAddress"),
  );
  const poster = getAddress(p.posterAddress);
  const reward = p.rewardPerRun;
  const amount = p.amount;
  checkStart(cadence, p.startsAt, now);
  // At least one run must be paid; costs.total pays them all. Fewer runs paid: EXHAUSTED until topped up.
  if (amount < BigInt(costs.totalPerRun)) {
    throw apiError("PAYMENT_MISMATCH", `amount ${amount} pays no run; at least ${costs.totalPerRun} is needed`);
  }
  await requireUsdc(deps, poster, amount);
  const v = vault(deps);
  const terms = termsOf(cadence, reward, poster, p.startsAt);
  const permit = await verifiedPermit(deps, {
    owner: poster,
    spender: v.address,
    value: amount,
    deadline: BigInt(p.permit.deadline),
    signature: p.permit.signature,
  });
  const nonce = await deps.chain.readContract({ ...v, functionName: "nonces", args: [poster] });
  const consentOk = await deps.chain
    .verifyTypedData({
      ...(subscribeTypedData({
        vault: v.address,
        chainId: deps.deployments.chainId,
        terms,
        amount,
        nonce,
        deadline: BigInt(p.consent.deadline),
      }) as never as Parameters<typeof deps.chain.verifyTypedData>[0]),
      address: poster,
      signature: p.consent.signature as Hex,
    })
    .catch(() => false);
  if (!consentOk || BigInt(p.consent.deadline) < now) {
    throw apiError(
      "INVALID_CONSENT",
      `the consent is not ${poster}'s unexpired EIP-712 Subscribe signature of these terms and amount (vault nonce ${nonce})`,
    );
  }
  const result = await relayVault(
    deps,
    "openWithPermit",
    [
      terms,
      amount,
      BigInt(p.consent.deadline),
      p.consent.signature as Hex,
      BigInt(p.permit.deadline),
      permit.v,
      permit.r,
      permit.s,
    ],
    `subscription-open:${p.consent.signature.toLowerCase()}`,
  );
  const opened = vaultEvent(deps, result.logs as never, "SubscriptionOpened");
  if (!opened) throw new Error(`transaction ${result.txHash} has no SubscriptionOpened`);
  const vaultId = opened.args.id as bigint;
  const startsAt = opened.args.startsAt as number;
  const hash = result.txHash.toLowerCase() as Hex;
  const id = await insertOpenedSubscription(deps, {
    posterAddress: poster,
    instructions: p.instructions,
    task: cadence.task,
    cadence: cadence.cadence,
    intervalLabel: cadence.interval,
    everySeconds: cadence.everySeconds,
    totalRuns: cadence.totalRuns,
    rewardPerRun: reward,
    feePerRun: feeOf(reward, feeBps),
    amount,
    startsAt: Number(startsAt),
    vaultId,
    txHash: hash,
  });
  // A retried request gets the relayer's first transaction back: it opened the subscription recorded then.
  if (id === "tx-used") throw txAlreadyUsed(hash);
  const row: SubscriptionRow = await syncFromChain(deps, await requireSubscription(deps, id));
  return { row, cadence, detected, costs, txHash: hash, amount, vaultId, startsAt };
}

export const txAlreadyUsed = (hash: string) =>
  apiError("TX_ALREADY_USED", `transaction ${hash} already funded a subscription`);

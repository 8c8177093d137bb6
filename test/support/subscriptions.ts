// Subscriptions as a client makes them: preview the terms, sign the SubscriptionVault's EIP-712 Subscribe consent
// and a USDC permit to the vault, sign the SIWE action, post. Top-ups are a permit plus the signed action.
// A test file's subscriptions are its own: when the file ends, every subscription still ACTIVE or PAUSED of a poster
// it signed for is cancelled through the API, so the 1 s scheduler never opens runs for them while later files run
// (or after a later file moves chain time forward).
import assert from "node:assert/strict";
import { after } from "node:test";
import { subscribeTypedData } from "@agenthub/sdk/protocol";
import type { Address, Hex } from "viem";
import { signedAction, signPermit, walletFromKey } from "./agents.ts";
import { api, chain, publicClient } from "./stack.ts";

const chainNow = async () => (await publicClient.getBlock()).timestamp;

/** The posters this file signed subscriptions for (address -> key). */
const posters = new Map<Address, Hex>();

after(async () => {
  for (const [address, key] of posters) {
    for (const status of ["ACTIVE", "PAUSED"]) {
      const q = new URLSearchParams({ posterAddress: address, status, limit: "100" });
      const list = await api("GET", `/api/subscriptions?${q}`);
      assert.equal(list.status, 200, JSON.stringify(list.body));
      for (const { id } of list.body.subscriptions as { id: number }[]) {
        const res = await api("DELETE", `/api/subscriptions/${id}`, {
          body: await signedAction(key, "subscription-cancel", "subscription", id),
        });
        assert.equal(res.status, 200, `cancel subscription ${id}: ${JSON.stringify(res.body)}`);
      }
    }
  }
});

/** The create body for `instructions`, prepaying `amount` (everything signed by `key`). */
export async function subscriptionBody(key: Hex, instructions: string, amount: bigint, reward: bigint) {
  const { account, address } = walletFromKey(key);
  posters.set(address, key);
  const q = new URLSearchParams({ instructions, rewardPerRun: reward.toString(), posterAddress: address });
  const preview = await api("GET", `/api/subscriptions/parse-cadence?${q}`);
  if (preview.status !== 200) throw new Error(`preview: ${JSON.stringify(preview.body)}`);
  const t = preview.body.terms;
  const vault = preview.body.vault as Address;
  const deadline = (await chainNow()) + 3600n;
  const consent = await account.signTypedData(
    subscribeTypedData({
      vault,
      chainId: chain.id,
      terms: {
        subscriber: address,
        rewardPerRun: BigInt(t.rewardPerRun),
        interval: t.interval,
        startsAt: t.startsAt,
        totalRuns: t.totalRuns,
        runDuration: t.runDuration,
        maxRevisions: t.maxRevisions,
      },
      amount,
      nonce: BigInt(preview.body.nonce),
      deadline,
    }),
  );
  const permit = await signPermit(key, vault, amount, deadline);
  return {
    instructions,
    rewardPerRun: reward.toString(),
    posterAddress: address,
    amount: amount.toString(),
    startsAt: t.startsAt as number,
    consent: { deadline: Number(deadline), signature: consent },
    permit: { deadline: Number(deadline), signature: permit },
    ...(await signedAction(key, "subscription-create", "subscription", "new")),
  };
}

export async function createSubscription(key: Hex, instructions: string, amount: bigint, reward: bigint) {
  return api("POST", "/api/subscriptions", { body: await subscriptionBody(key, instructions, amount, reward) });
}

/** The vault address (SubscriptionVault). */
export async function vaultAddress(): Promise<Address> {
  const q = new URLSearchParams({ instructions: "daily for 2 days x", rewardPerRun: "10000" });
  return (await api("GET", `/api/subscriptions/parse-cadence?${q}`)).body.vault as Address;
}

export async function topupSubscription(key: Hex, id: number, amount: bigint) {
  const deadline = (await chainNow()) + 3600n;
  const permit = await signPermit(key, await vaultAddress(), amount, deadline);
  return api("POST", `/api/subscriptions/${id}/topup`, {
    body: {
      amount: amount.toString(),
      permit: { deadline: Number(deadline), signature: permit },
      ...(await signedAction(key, "subscription-topup", "subscription", id)),
    },
  });
}

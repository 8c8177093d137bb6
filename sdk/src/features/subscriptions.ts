// Subscriptions: recurring runs from a natural-language cadence, prepaid with a USDC transfer to the platform's
// subscription account. Writes are signed (subscription-<create|topup|pause|resume|cancel>:subscription:<id>).
import type { Address, Hex } from "viem";
import { erc20Abi } from "../abi.ts";
import type { Core } from "../core.ts";
import { type SignerLike, toSigner } from "../signer.ts";
import type { Query } from "../types.ts";
import { type OwnWallet, sendOwn } from "./shared.ts";

export class Subscriptions {
  constructor(private readonly core: Core) {}

  /** What the instructions mean (cadence, runs) and what they cost, plus where to pay. */
  preview(instructions: string, rewardPerRun: bigint | string) {
    return this.core.call(
      this.core.api.GET("/api/subscriptions/parse-cadence", {
        params: { query: { instructions, rewardPerRun: String(rewardPerRun) } },
      }),
    );
  }

  /**
   * Creates a subscription. Pay first: either pass `txHash` of your USDC transfer to the payment address, or a
   * `wallet` and the SDK transfers `amount` (default: the whole cost) and waits for it.
   */
  async create(
    input: { instructions: string; rewardPerRun: bigint | string; txHash?: Hex; wallet?: OwnWallet; amount?: bigint },
    signer: SignerLike,
  ) {
    const poster = toSigner(signer);
    let txHash = input.txHash;
    if (!txHash) {
      const preview = await this.preview(input.instructions, input.rewardPerRun);
      if (!input.wallet) throw new Error("subscriptions.create needs txHash or wallet");
      txHash = await this.pay(
        input.wallet,
        preview.paymentAddress as Address,
        input.amount ?? BigInt(preview.costs.total),
      );
    }
    const signed = await this.core.signAction(poster, "subscription-create", "subscription", "new");
    return this.core.call(
      this.core.api.POST("/api/subscriptions", {
        body: {
          instructions: input.instructions,
          rewardPerRun: String(input.rewardPerRun),
          posterAddress: poster.address,
          txHash,
          ...signed,
        },
      }),
    );
  }

  /** Transfers `amount` USDC base units from the wallet to the subscription account; returns the txHash. */
  async pay(wallet: OwnWallet, paymentAddress: Address, amount: bigint): Promise<Hex> {
    const usdc = (await this.core.config()).usdc.address as Address;
    return sendOwn(
      this.core,
      wallet,
      { address: usdc, abi: erc20Abi, functionName: "transfer", args: [paymentAddress, amount] },
      "subscription payment",
    );
  }

  list(query: Query<"/api/subscriptions", "get"> = {}) {
    return this.core.call(this.core.api.GET("/api/subscriptions", { params: { query } }));
  }

  get(id: number) {
    return this.core.call(this.core.api.GET("/api/subscriptions/{id}", { params: { path: { id } } }));
  }

  /** Adds `amount` paid by `txHash` (or transferred now from `wallet`). */
  async topUp(id: number, input: { amount: bigint; txHash?: Hex; wallet?: OwnWallet }, signer: SignerLike) {
    let txHash = input.txHash;
    if (!txHash) {
      if (!input.wallet) throw new Error("subscriptions.topUp needs txHash or wallet");
      const { subscription } = await this.get(id);
      const { paymentAddress } = await this.preview(subscription.instructions, subscription.rewardPerRun);
      txHash = await this.pay(input.wallet, paymentAddress as Address, input.amount);
    }
    const signed = await this.core.signAction(signer, "subscription-topup", "subscription", id);
    return this.core.call(
      this.core.api.POST("/api/subscriptions/{id}/topup", {
        params: { path: { id } },
        body: { amount: input.amount.toString(), txHash, ...signed },
      }),
    );
  }

  async pause(id: number, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "subscription-pause", "subscription", id);
    return this.core.call(
      this.core.api.POST("/api/subscriptions/{id}/pause", { params: { path: { id } }, body: signed }),
    );
  }

  async resume(id: number, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "subscription-resume", "subscription", id);
    return this.core.call(
      this.core.api.POST("/api/subscriptions/{id}/resume", { params: { path: { id } }, body: signed }),
    );
  }

  /** Cancels; the remaining balance is forfeited (see docs/subscriptions.md). */
  async cancel(id: number, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "subscription-cancel", "subscription", id);
    return this.core.call(this.core.api.DELETE("/api/subscriptions/{id}", { params: { path: { id } }, body: signed }));
  }
}

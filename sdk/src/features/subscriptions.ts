// Subscriptions: recurring runs from a natural-language cadence, prepaid in USDC into the SubscriptionVault contract
// (escrowed per subscriber): the subscriber signs the vault's EIP-712 Subscribe terms and a USDC permit, the relayer
// opens it. Writes are signed (subscription-<create|topup|pause|resume|cancel>:subscription:<id>).
import type { Address } from "viem";
import type { Core } from "../core.ts";
import { subscribeTypedData } from "../protocol/index.ts";
import { type SignerLike, toSigner } from "../signer.ts";
import type { Query } from "../types.ts";
import { contractAddress, signUsdcPermit } from "./shared.ts";

export class Subscriptions {
  constructor(private readonly core: Core) {}

  /** What the instructions mean (cadence, next runs) and cost, the vault terms to sign (and nonce for a poster). */
  preview(instructions: string, rewardPerRun: bigint | string, posterAddress?: Address) {
    return this.core.call(
      this.core.api.GET("/api/subscriptions/parse-cadence", {
        params: {
          query: { instructions, rewardPerRun: String(rewardPerRun), ...(posterAddress ? { posterAddress } : {}) },
        },
      }),
    );
  }

  /**
   * Creates a subscription prepaying `amount` (default: every run of a bounded schedule, one run of an open-ended
   * one) into the vault: signs the Subscribe consent and the USDC permit (no ETH needed), the relayer opens it.
   */
  async create(input: { instructions: string; rewardPerRun: bigint | string; amount?: bigint }, signer: SignerLike) {
    const poster = toSigner(signer);
    const preview = await this.preview(input.instructions, input.rewardPerRun, poster.address);
    const amount = input.amount ?? BigInt(preview.costs.total ?? preview.costs.totalPerRun);
    const vault = preview.vault as Address;
    const config = await this.core.config();
    const permit = await signUsdcPermit(this.core, poster, vault, amount);
    const t = preview.terms;
    this.core.progress("sign", `signing the subscription terms (${preview.detected.cadence}) for ${amount} base units`);
    const consent = await poster.signTypedData(
      subscribeTypedData({
        vault,
        chainId: config.chainId,
        terms: {
          subscriber: poster.address,
          rewardPerRun: BigInt(t.rewardPerRun),
          interval: t.interval,
          startsAt: t.startsAt,
          totalRuns: t.totalRuns,
          runDuration: t.runDuration,
          maxRevisions: t.maxRevisions,
        },
        amount,
        nonce: BigInt(preview.nonce ?? "0"),
        deadline: BigInt(permit.deadline),
      }) as never,
    );
    const signed = await this.core.signAction(poster, "subscription-create", "subscription", "new");
    return this.core.call(
      this.core.api.POST("/api/subscriptions", {
        body: {
          instructions: input.instructions,
          rewardPerRun: String(input.rewardPerRun),
          posterAddress: poster.address,
          amount: amount.toString(),
          startsAt: t.startsAt,
          consent: { deadline: Number(permit.deadline), signature: consent },
          permit: { deadline: Number(permit.deadline), signature: permit.signature },
          ...signed,
        },
      }),
    );
  }

  list(query: Query<"/api/subscriptions", "get"> = {}) {
    return this.core.call(this.core.api.GET("/api/subscriptions", { params: { query } }));
  }

  /** The subscription itself; its runs are `runs(id)`. */
  get(id: number) {
    return this.core.call(this.core.api.GET("/api/subscriptions/{id}", { params: { path: { id } } }));
  }

  /** The runs the subscription created, oldest first (a page). */
  runs(id: number, query: Query<"/api/subscriptions/{id}/runs", "get"> = {}) {
    return this.core.call(this.core.api.GET("/api/subscriptions/{id}/runs", { params: { path: { id }, query } }));
  }

  /** Adds `amount` to the vault balance by a USDC permit (no ETH needed). */
  async topUp(id: number, input: { amount: bigint }, signer: SignerLike) {
    const vault = await contractAddress(this.core, "SubscriptionVault");
    const permit = await signUsdcPermit(this.core, signer, vault, input.amount);
    const signed = await this.core.signAction(signer, "subscription-topup", "subscription", id);
    return this.core.call(
      this.core.api.POST("/api/subscriptions/{id}/topup", {
        params: { path: { id } },
        body: {
          amount: input.amount.toString(),
          permit: { deadline: Number(permit.deadline), signature: permit.signature },
          ...signed,
        },
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

  /** Cancels; the vault refunds the unspent balance to the subscriber. */
  async cancel(id: number, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "subscription-cancel", "subscription", id);
    return this.core.call(this.core.api.DELETE("/api/subscriptions/{id}", { params: { path: { id } }, body: signed }));
  }
}

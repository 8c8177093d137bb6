// Agents: registration (gasless mint), the claim (EIP-191 by the new owner + the claim code), stake (EIP-2612 permit
// through the relayer, or the caller's own deposit), profile updates (EIP-4361 signed by the token owner), reports.
import type { Address, Hex } from "viem";
import { stakeVaultAbi } from "../abi.ts";
import type { Core } from "../core.ts";
import { claimMessage } from "../protocol/index.ts";
import { type SignerLike, toSigner } from "../signer.ts";
import type { RequestBody, Unsigned } from "../types.ts";
import { AgentReads } from "./reads.ts";
import { approveUsdc, contractAddress, type OwnWallet, sendOwn, signUsdcPermit } from "./shared.ts";

export type AgentProfile = RequestBody<"/api/agents/register", "post">;
export type ProfileChanges = Unsigned<RequestBody<"/api/agents/{id}", "patch">>;

export class Agents extends AgentReads {
  constructor(protected override readonly core: Core) {
    super(core);
  }

  /** Registers an agent (the service generates its wallet and mints its identity). Keep `claimCode` secret. */
  register(profile: AgentProfile, opts: { idempotencyKey?: string } = {}) {
    const { api } = this.core;
    const headers = opts.idempotencyKey ? { "idempotency-key": opts.idempotencyKey } : undefined;
    return this.core.call(api.POST("/api/agents/register", { body: profile, params: { header: headers as never } }));
  }

  /**
   * Claims agent `agentId` to the signer's address: the signer signs "I claim agent {id} to address {addr}".
   * The answer carries the agent wallet's private key, once.
   */
  async claim(agentId: number, opts: { claimCode: string; signer: SignerLike }) {
    const signer = toSigner(opts.signer);
    this.core.progress("sign", `signing the claim of agent ${agentId} to ${signer.address}`);
    const signature = await signer.signMessage({ message: claimMessage(agentId, signer.address) });
    return this.core.call(
      this.core.api.POST("/api/agents/{id}/claim", {
        params: { path: { id: agentId } },
        body: { signature, userAddress: signer.address, claimCode: opts.claimCode },
      }),
    );
  }

  /** Updates the profile; signed (update-profile:agent:<id>) by the identity token's owner. */
  async update(agentId: number, changes: ProfileChanges, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "update-profile", "agent", agentId);
    return this.core.call(
      this.core.api.PATCH("/api/agents/{id}", { params: { path: { id: agentId } }, body: { ...changes, ...signed } }),
    );
  }

  /**
   * Stakes `amount` USDC base units gaslessly: the signer (the agent's wallet or its owner, holding the USDC) signs
   * an EIP-2612 permit for the StakeVault and the relayer deposits.
   */
  async stakeWithPermit(agentId: number, opts: { amount: bigint | string; signer: SignerLike }) {
    const amount = BigInt(opts.amount);
    const vault = await contractAddress(this.core, "StakeVault");
    const permit = await signUsdcPermit(this.core, opts.signer, vault, amount);
    this.core.progress("api", `relaying the deposit of ${amount} into agent ${agentId}'s stake`);
    return this.core.call(
      this.core.api.POST("/api/agents/{id}/stake/permit", {
        params: { path: { id: agentId } },
        body: {
          walletAddress: permit.owner,
          amount: amount.toString(),
          deadline: permit.deadline,
          signature: permit.signature,
        },
      }),
    );
  }

  /**
   * Stake withdrawal, phase 1 (gasless): asks to withdraw `amount` USDC base units; the vault's cooldown starts
   * (GET /api/config -> parameters.stakeWithdrawalCooldownSeconds). Signed by the identity token's owner.
   */
  async requestStakeWithdrawal(agentId: number, opts: { amount: bigint | string; signer: SignerLike }) {
    const signed = await this.core.signAction(opts.signer, "stake-withdraw-request", "agent", agentId);
    this.core.progress("api", `relaying the withdrawal request of ${opts.amount} from agent ${agentId}'s stake`);
    return this.core.call(
      this.core.api.POST("/api/agents/{id}/stake/withdraw", {
        params: { path: { id: agentId } },
        body: { phase: "request", amount: String(opts.amount), ...signed },
      }),
    );
  }

  /** Stake withdrawal, phase 2 (gasless), after the cooldown: the vault pays the requested amount to the owner. */
  async completeStakeWithdrawal(agentId: number, opts: { signer: SignerLike }) {
    const signed = await this.core.signAction(opts.signer, "stake-withdraw", "agent", agentId);
    this.core.progress("api", `relaying the withdrawal of agent ${agentId}'s pending stake`);
    return this.core.call(
      this.core.api.POST("/api/agents/{id}/stake/withdraw", {
        params: { path: { id: agentId } },
        body: { phase: "complete", ...signed },
      }),
    );
  }

  /** Stakes from the caller's own wallet (approve + StakeVault.deposit, paying gas), then records the deposit. */
  async stakeFromWallet(agentId: number, opts: { amount: bigint | string; wallet: OwnWallet }) {
    const amount = BigInt(opts.amount);
    const vault = await contractAddress(this.core, "StakeVault");
    await approveUsdc(this.core, opts.wallet, vault, amount);
    const txHash = await sendOwn(
      this.core,
      opts.wallet,
      { address: vault, abi: stakeVaultAbi, functionName: "deposit", args: [BigInt(agentId), amount] },
      "stake deposit",
    );
    return this.recordStake(agentId, { amount, txHash, walletAddress: opts.wallet.account.address });
  }

  /** Records a StakeVault deposit the caller sent itself (each txHash counts once). */
  recordStake(agentId: number, opts: { amount: bigint | string; txHash: Hex; walletAddress: Address }) {
    return this.core.call(
      this.core.api.POST("/api/agents/{id}/stake", {
        params: { path: { id: agentId } },
        body: { amount: BigInt(opts.amount).toString(), txHash: opts.txHash, walletAddress: opts.walletAddress },
      }),
    );
  }

  /** Anonymous report (the core's report endpoint); signed reports are `hub.reports.create`. */
  report(agentId: number, body: RequestBody<"/api/agents/{id}/report", "post">) {
    return this.core.call(this.core.api.POST("/api/agents/{id}/report", { params: { path: { id: agentId } }, body }));
  }

  /** Operator only (admin token): slashes a percentage of the agent's stake to the treasury. */
  slash(agentId: number, body: RequestBody<"/api/agents/{id}/slash", "post">, opts: { idempotencyKey?: string } = {}) {
    const headers = opts.idempotencyKey ? { "idempotency-key": opts.idempotencyKey } : undefined;
    return this.core.call(
      this.core.api.POST("/api/agents/{id}/slash", {
        params: { path: { id: agentId }, header: headers as never },
        body,
      }),
    );
  }
}

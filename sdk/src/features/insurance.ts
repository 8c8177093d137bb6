// Insurance: agents' USDC coverage in the InsurancePool (permit through the relayer, or the caller's own stake
// transaction), two-phase signed withdrawals, and posters' claims for runs an agent failed.
import type { Address, Hex } from "viem";
import { insurancePoolAbi } from "../abi.ts";
import type { Core } from "../core.ts";
import type { SignerLike } from "../signer.ts";
import type { Query } from "../types.ts";
import { approveUsdc, contractAddress, type OwnWallet, sendOwn, signUsdcPermit } from "./shared.ts";

export class Insurance {
  constructor(private readonly core: Core) {}

  /** Adds coverage gaslessly: the signer (agent wallet or owner) permits the InsurancePool; the relayer stakes. */
  async stakeWithPermit(agentId: number, opts: { amount: bigint | string; signer: SignerLike }) {
    const amount = BigInt(opts.amount);
    const pool = await contractAddress(this.core, "InsurancePool");
    const permit = await signUsdcPermit(this.core, opts.signer, pool, amount);
    return this.core.call(
      this.core.api.POST("/api/insurance/stake", {
        body: {
          agentTokenId: agentId,
          amountUsdc: amount.toString(),
          walletAddress: permit.owner,
          deadline: permit.deadline,
          signature: permit.signature,
        },
      }),
    );
  }

  /** Adds coverage from the caller's wallet (approve + InsurancePool.stake, paying gas), then records it. */
  async stakeFromWallet(agentId: number, opts: { amount: bigint | string; wallet: OwnWallet }) {
    const amount = BigInt(opts.amount);
    const pool = await contractAddress(this.core, "InsurancePool");
    await approveUsdc(this.core, opts.wallet, pool, amount);
    const txHash = await sendOwn(
      this.core,
      opts.wallet,
      { address: pool, abi: insurancePoolAbi, functionName: "stake", args: [BigInt(agentId), amount] },
      "insurance stake",
    );
    return this.recordStake(agentId, { amount, txHash, walletAddress: opts.wallet.account.address });
  }

  recordStake(agentId: number, opts: { amount: bigint | string; txHash: Hex; walletAddress: Address }) {
    return this.core.call(
      this.core.api.POST("/api/insurance/stake", {
        body: {
          agentTokenId: agentId,
          amountUsdc: BigInt(opts.amount).toString(),
          walletAddress: opts.walletAddress,
          txHash: opts.txHash,
        },
      }),
    );
  }

  coverage(agentId: number, requiredAmount: bigint | string) {
    return this.core.call(
      this.core.api.GET("/api/insurance/coverage/{agentTokenId}", {
        params: { path: { agentTokenId: agentId }, query: { requiredAmount: String(requiredAmount) } },
      }),
    );
  }

  stakeOf(agentId: number) {
    return this.core.call(
      this.core.api.GET("/api/insurance/stake/{agentTokenId}", { params: { path: { agentTokenId: agentId } } }),
    );
  }

  stakes(agentId: number, query: Query<"/api/insurance/agent/{agentId}/stakes", "get"> = {}) {
    return this.core.call(
      this.core.api.GET("/api/insurance/agent/{agentId}/stakes", { params: { path: { agentId }, query } }),
    );
  }

  /** Phase 1: asks to withdraw `amount` (the cooldown starts). Signed by the agent's owner or wallet. */
  async requestWithdrawal(agentId: number, amount: bigint | string, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "insurance-withdraw-request", "agent", agentId);
    return this.core.call(
      this.core.api.POST("/api/insurance/withdraw", {
        body: { agentTokenId: agentId, phase: "request", amountUsdc: String(amount), ...signed },
      }),
    );
  }

  /** Phase 2, after the cooldown: pays the requested amount out. */
  async completeWithdrawal(agentId: number, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "insurance-withdraw", "agent", agentId);
    return this.core.call(
      this.core.api.POST("/api/insurance/withdraw", { body: { agentTokenId: agentId, phase: "complete", ...signed } }),
    );
  }

  claims(runId: number) {
    return this.core.call(
      this.core.api.GET("/api/insurance/bounty/{bountyId}/claims", { params: { path: { bountyId: runId } } }),
    );
  }

  /**
   * The run's poster claims the failed agent's coverage after a timeout or a lost dispute: the run's declared cover
   * (agreed damages) less the stake already slashed to the poster, capped by the coverage, once per run.
   */
  async claim(runId: number, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "insurance-claim", "run", runId);
    return this.core.call(
      this.core.api.POST("/api/insurance/bounty/{bountyId}/claims", {
        params: { path: { bountyId: runId } },
        body: signed,
      }),
    );
  }
}

// Governance: sign in (EIP-4361 governance-access:account:<address>) for a bearer token, propose (the API checks
// and prepares the Governor call, the proposer sends it from its own wallet, the API records it), and vote
// gaslessly by EIP-712 ballot (the relayer calls castVoteBySig). Reads are public.
import type { Address, Hex } from "viem";
import { governanceTokenAbi } from "../abi.ts";
import type { Core } from "../core.ts";
import { AgentHubError } from "../errors.ts";
import { ballotTypedData } from "../protocol/index.ts";
import { type SignerLike, toSigner } from "../signer.ts";
import type { Query } from "../types.ts";
import { contractAddress, type OwnWallet, sendOwn } from "./shared.ts";

export interface ProposalInput {
  /** Markdown; the first line is the title. */
  description: string;
  targets: Address[];
  values: (bigint | string | number)[];
  calldatas: Hex[];
}

export type Support = "against" | "for" | "abstain" | 0 | 1 | 2;
const SUPPORT = { against: 0, for: 1, abstain: 2 } as const;

export class Governance {
  private readonly tokens = new Map<string, { token: string; expiresAt: number }>();

  constructor(private readonly core: Core) {}

  /** A governance access token for the signer (cached until a minute before it expires). */
  async signIn(signer: SignerLike): Promise<string> {
    const { address } = toSigner(signer);
    const cached = this.tokens.get(address);
    if (cached && cached.expiresAt - 60_000 > Date.now()) return cached.token;
    const signed = await this.core.signAction(signer, "governance-access", "account", address);
    const answer = await this.core.call(this.core.api.POST("/api/auth/token", { body: signed }));
    this.tokens.set(address, { token: answer.accessToken, expiresAt: Date.parse(answer.expiresAt) });
    return answer.accessToken;
  }

  /** Revokes the signer's cached token. */
  async signOut(signer: SignerLike): Promise<void> {
    const { address } = toSigner(signer);
    const cached = this.tokens.get(address);
    if (!cached) return;
    this.tokens.delete(address);
    await this.core.call(
      this.core.api.DELETE("/api/auth/token", { headers: { authorization: `Bearer ${cached.token}` } }),
    );
  }

  proposals(query: Query<"/api/advanced/governance/proposals", "get"> = {}) {
    return this.core.call(this.core.api.GET("/api/advanced/governance/proposals", { params: { query } }));
  }

  proposal(proposalId: string) {
    return this.core.call(
      this.core.api.GET("/api/advanced/governance/proposals/{proposalId}", { params: { path: { proposalId } } }),
    );
  }

  votingPower(address: Address) {
    return this.core.call(
      this.core.api.GET("/api/advanced/governance/voting-power/{address}", { params: { path: { address } } }),
    );
  }

  treasury() {
    return this.core.call(this.core.api.GET("/api/advanced/governance/treasury"));
  }

  /**
   * Proposes: the API checks the proposer's votes and prepares the Governor call, `wallet` (the proposer's, paying
   * gas: the Governor makes msg.sender the proposer) sends it, and the API records the proposal by txHash.
   */
  async propose(input: ProposalInput, wallet: OwnWallet) {
    const token = await this.signIn(wallet);
    const body = {
      description: input.description,
      targets: input.targets,
      values: input.values.map((v) => String(v)),
      calldatas: input.calldatas,
    };
    const headers = { authorization: `Bearer ${token}` };
    const prepared = await this.core.call(this.core.api.POST("/api/advanced/governance/proposals", { body, headers }));
    if (!("transaction" in prepared)) throw AgentHubError.client("UNEXPECTED_ANSWER", "no transaction to send");
    this.core.progress("sign", `sending propose() from ${wallet.account.address}`);
    const hash = await wallet.sendTransaction({
      account: wallet.account,
      chain: wallet.chain ?? null,
      to: prepared.transaction.to as Address,
      data: prepared.transaction.data as Hex,
      value: BigInt(prepared.transaction.value),
    });
    await this.core.waitForReceipt(hash, "propose");
    this.core.progress("api", `recording proposal ${prepared.proposalId}`);
    return this.core.call(
      this.core.api.POST("/api/advanced/governance/proposals", { body: { ...body, txHash: hash }, headers }),
    );
  }

  /**
   * Cancels a pending proposal: the API checks that `wallet` is the proposer and prepares the Governor's cancel(),
   * `wallet` sends it (the Governor lets only the proposer cancel, before voting opens), the API confirms it.
   */
  async cancel(proposalId: string, wallet: OwnWallet) {
    const token = await this.signIn(wallet);
    const headers = { authorization: `Bearer ${token}` };
    const path = "/api/advanced/governance/proposals/{proposalId}/cancel" as const;
    const prepared = await this.core.call(
      this.core.api.POST(path, { params: { path: { proposalId } }, body: {}, headers }),
    );
    if (!("transaction" in prepared)) throw AgentHubError.client("UNEXPECTED_ANSWER", "no transaction to send");
    this.core.progress("sign", `sending cancel() from ${wallet.account.address}`);
    const hash = await wallet.sendTransaction({
      account: wallet.account,
      chain: wallet.chain ?? null,
      to: prepared.transaction.to as Address,
      data: prepared.transaction.data as Hex,
      value: 0n,
    });
    await this.core.waitForReceipt(hash, "cancel");
    return this.core.call(
      this.core.api.POST(path, { params: { path: { proposalId } }, body: { txHash: hash }, headers }),
    );
  }

  /**
   * Delegates `wallet`'s governance-token votes to `delegatee` (itself by default: tokens count as votes only once
   * delegated, and only for proposals created after). `wallet` sends AgentHubToken.delegate and pays its gas
   * (docs/decisions.md, "Delegation is the holder's own transaction"). Answers the holder's voting power after it.
   */
  async delegate(wallet: OwnWallet, delegatee: Address = wallet.account.address) {
    const token = await contractAddress(this.core, "AgentHubToken");
    const txHash = await sendOwn(
      this.core,
      wallet,
      { address: token, abi: governanceTokenAbi, functionName: "delegate", args: [delegatee] },
      `delegate() to ${delegatee}`,
    );
    return { txHash, delegatee, holder: await this.votingPower(wallet.account.address) };
  }

  /** Votes by signature: the voter signs the Governor's EIP-712 ballot, the relayer submits it (no ETH needed). */
  async vote(proposalId: string, support: Support, signer: SignerLike, opts: { reason?: string } = {}) {
    const voter = toSigner(signer);
    const supportValue = typeof support === "number" ? support : SUPPORT[support];
    const [config, governor, power, token] = await Promise.all([
      this.core.config(),
      contractAddress(this.core, "AgentHubGovernor"),
      this.votingPower(voter.address),
      this.signIn(voter),
    ]);
    this.core.progress("sign", `signing a ballot on ${proposalId} as ${voter.address}`);
    const signature = await voter.signTypedData(
      ballotTypedData({
        governor,
        chainId: config.chainId,
        proposalId: BigInt(proposalId),
        support: supportValue,
        voter: voter.address,
        nonce: BigInt(power.ballotNonce),
        reason: opts.reason,
      }) as never,
    );
    return this.core.call(
      this.core.api.POST("/api/advanced/governance/proposals/{proposalId}/vote", {
        params: { path: { proposalId } },
        headers: { authorization: `Bearer ${token}` },
        body: { support: supportValue, signature, ...(opts.reason === undefined ? {} : { reason: opts.reason }) },
      }),
    );
  }
}

// Runs (paid work held in RunEscrow), for posters and agents. Every write is signed (EIP-4361, resource
// urn:agenthub:<action>:run:<id>) and answered with the run as the indexer shows it after the transaction.
// Steps the relayer submits also carry the party's on-chain consent (EIP-712 RunConsent, checked by the escrow):
// the relayer cannot act for anyone without it. The poster signs its own; an agent's consent comes from the
// identity token's owner (`consentSigner` when the request is signed by the agent's generated wallet).
// Poster: create -> fund (permit or own createRun) -> requestRevision / approve / reject / cancel / dispute.
// Agent (the identity token's owner or the agent's wallet): claim -> start -> submit (-> dispute).
import { type Address, type Hex, isAddressEqual } from "viem";
import { runEscrowAbi } from "../abi.ts";
import type { Core } from "../core.ts";
import { AgentHubError } from "../errors.ts";
import {
  deliverableHashOf,
  type RunConsentAction,
  runConsentTypedData,
  runFundingTypedData,
} from "../protocol/index.ts";
import { type SignerLike, toSigner } from "../signer.ts";
import type { Answer, RequestBody, Run, RunState } from "../types.ts";
import { RunReads } from "./reads.ts";
import { approveUsdc, contractAddress, type OwnWallet, PERMIT_TTL_SECONDS, sendOwn } from "./shared.ts";

export interface CreateRunInput {
  title: string;
  description: string;
  /** USDC base units (6 decimals); the poster also pays the 5% platform fee at funding. */
  reward: bigint | string;
  /** A Date, an ISO 8601 string, or seconds from now on the chain's clock. */
  deadline: Date | string | { inSeconds: number };
  /** 0-10, default 2. */
  maxRevisions?: number;
  /**
   * Agreed damages (USDC base units) insurance pays you if the agent times out or loses a dispute, less the stake
   * slashed to you; an agent needs that much coverage to claim. Set in the InsurancePool when the run is funded.
   */
  requiredCoverage?: bigint | string;
}

export type Deliverable =
  | { deliverable: RequestBody<"/api/runs/{id}/submit", "post">["deliverable"] }
  | { deliverableHash: Hex };

type Step = "start" | "approve" | "cancel" | "timeout-slash";
/** The state each step leaves the run in: a pending answer is confirmed by a new event in that state. */
const STEP_STATE: Record<Step, RunState> = {
  start: "IN_PROGRESS",
  approve: "APPROVED",
  cancel: "CANCELLED",
  "timeout-slash": "TIMED_OUT",
};
const STEP_ACTION: Record<Step, string> = {
  start: "start-run",
  approve: "approve-run",
  cancel: "cancel-run",
  "timeout-slash": "timeout-slash",
};
/** The escrow action each step's consent authorizes; timeout-slash needs none (chain time decides). */
const STEP_CONSENT: Record<Step, RunConsentAction | undefined> = {
  start: "start",
  approve: "approve",
  cancel: "cancel",
  "timeout-slash": undefined,
};

type RunActionAnswer = Answer<"/api/runs/{id}/start", "post">;

/** Who signs an agent step's on-chain consent when it is not the request's signer (the token's owner). */
export interface AgentStepOptions {
  consentSigner?: SignerLike;
}

export class Runs extends RunReads {
  constructor(protected override readonly core: Core) {
    super(core);
  }

  /** Drafts a run (DRAFT: stored, nothing moves); signed by the poster, who becomes `posterAddress`. */
  async create(input: CreateRunInput, signer: SignerLike) {
    const poster = toSigner(signer);
    const deadline =
      input.deadline instanceof Date
        ? input.deadline.toISOString()
        : typeof input.deadline === "string"
          ? input.deadline
          : new Date(Number((await this.core.chainTime()) + BigInt(input.deadline.inSeconds)) * 1000).toISOString();
    const signed = await this.core.signAction(poster, "create-run", "run", "new");
    return this.core.call(
      this.core.api.POST("/api/runs", {
        body: {
          posterAddress: poster.address,
          title: input.title,
          description: input.description,
          reward: BigInt(input.reward).toString(),
          deadline,
          ...(input.maxRevisions === undefined ? {} : { maxRevisions: input.maxRevisions }),
          ...(input.requiredCoverage === undefined
            ? {}
            : { requiredCoverage: BigInt(input.requiredCoverage).toString() }),
          ...signed,
        },
      }),
    );
  }

  /**
   * Funds a draft (OPEN): by default the poster signs an EIP-3009 authorization of reward + fee whose nonce binds
   * the run's terms, and the relayer calls createRunWithAuthorization (no ETH needed; the relayer can fund exactly
   * this run or nothing). With `wallet`, the poster sends createRun itself and the API records it. The cover the
   * draft declares is one of those terms: the escrow fixes it at funding.
   */
  async fund(runId: number, signer: SignerLike, opts: { wallet?: OwnWallet } = {}) {
    const run = await this.get(runId);
    const value = BigInt(run.reward) + BigInt(run.fee);
    const escrow = await contractAddress(this.core, "RunEscrow");
    let funded: Awaited<ReturnType<typeof this.sendFunding>>;
    if (opts.wallet) {
      const txHash = await this.createOnChain(run, escrow, value, opts.wallet);
      const signed = await this.core.signAction(signer, "fund-run", "run", runId);
      funded = await this.sendFunding(runId, { ...signed, txHash });
    } else {
      const authorization = await this.signFunding(run, escrow, value, signer);
      const signed = await this.core.signAction(signer, "fund-run", "run", runId);
      this.core.progress("api", `funding run ${runId}: the relayer moves ${value} USDC base units into escrow`);
      funded = await this.sendFunding(runId, { ...signed, authorization });
    }
    return funded;
  }

  private sendFunding(runId: number, body: RequestBody<"/api/runs/{id}/fund", "post">) {
    return this.followed(runId, "OPEN", () =>
      this.core.call(this.core.api.POST("/api/runs/{id}/fund", { params: { path: { id: runId } }, body })),
    );
  }

  /** The poster's EIP-3009 authorization of `value` to the escrow for exactly this draft's terms. */
  private async signFunding(run: Run, escrow: Address, value: bigint, signerLike: SignerLike) {
    const signer = toSigner(signerLike);
    if (!isAddressEqual(signer.address, run.posterAddress as Address)) {
      throw AgentHubError.client("NOT_RUN_POSTER", `run ${run.bountyId} is ${run.posterAddress}'s to fund`);
    }
    const config = await this.core.config();
    const validBefore = (await this.core.chainTime()) + PERMIT_TTL_SECONDS;
    this.core.progress(
      "sign",
      `signing an authorization: ${value} USDC base units into escrow for run ${run.bountyId}`,
    );
    const signature = await signer.signTypedData(
      runFundingTypedData({
        token: { address: config.usdc.address as Address, name: config.usdc.name, version: config.usdc.version },
        chainId: config.chainId,
        escrow,
        terms: {
          poster: signer.address,
          reward: BigInt(run.reward),
          deadline: BigInt(Math.floor(Date.parse(run.deadline) / 1000)),
          maxRevisions: run.maxRevisions,
          cover: BigInt(run.requiredCoverage),
          metadataUri: run.ipfsHash,
        },
        value,
        validBefore,
      }),
    );
    return { validBefore: Number(validBefore), signature };
  }

  private async createOnChain(run: Run, escrow: Address, value: bigint, wallet: OwnWallet): Promise<Hex> {
    if (run.state !== "DRAFT") throw AgentHubError.client("RUN_ALREADY_FUNDED", `run ${run.bountyId} is ${run.state}`);
    await approveUsdc(this.core, wallet, escrow, value);
    const deadline = BigInt(Math.floor(Date.parse(run.deadline) / 1000));
    return sendOwn(
      this.core,
      wallet,
      {
        address: escrow,
        abi: runEscrowAbi,
        functionName: "createRun",
        args: [BigInt(run.reward), deadline, run.maxRevisions, BigInt(run.requiredCoverage), run.ipfsHash],
      },
      "createRun",
    );
  }

  /** Drafts and funds in one go (authorization; the declared cover too); answers the OPEN run. */
  async post(input: CreateRunInput, signer: SignerLike) {
    const draft = await this.create(input, signer);
    return this.fund(draft.run.bountyId, signer);
  }

  /**
   * Signs `signer`'s on-chain consent to `action` on run `runId`: the nonce and deadline come from
   * GET /api/runs/{id}/consent, the typed data is rebuilt here (domain checked against the configured RunEscrow),
   * so the API cannot make the signer approve anything else.
   */
  async consent(
    runId: number,
    action: RunConsentAction,
    signerLike: SignerLike,
    extra: { agentId?: number; deliverableHash?: Hex } = {},
  ) {
    const signer = toSigner(signerLike);
    const served = await this.core.call(
      this.core.api.GET("/api/runs/{id}/consent", {
        params: { path: { id: runId }, query: { action, signer: signer.address, ...extra } },
      }),
    );
    const escrow = await contractAddress(this.core, "RunEscrow");
    const { domain, message } = served.typedData;
    if (!isAddressEqual(domain.verifyingContract as Address, escrow) || message.action !== action) {
      throw AgentHubError.client("CONSENT_MISMATCH", "the consent the API served is not for this escrow and action");
    }
    const typed = runConsentTypedData({
      escrow,
      chainId: (await this.core.config()).chainId,
      action,
      runId: BigInt(message.runId),
      agentId: BigInt(message.agentId),
      deliverableHash: message.deliverableHash as Hex,
      terms: {
        poster: message.terms.poster as Address,
        reward: BigInt(message.terms.reward),
        deadline: BigInt(message.terms.deadline),
        maxRevisions: BigInt(message.terms.maxRevisions),
        cover: BigInt(message.terms.cover),
      },
      nonce: BigInt(message.nonce),
      deadline: BigInt(message.deadline),
    });
    if (extra.agentId !== undefined && typed.message.agentId !== BigInt(extra.agentId)) {
      throw AgentHubError.client("CONSENT_MISMATCH", "the consent the API served names another agent");
    }
    if (extra.deliverableHash !== undefined && typed.message.deliverableHash !== extra.deliverableHash) {
      throw AgentHubError.client("CONSENT_MISMATCH", "the consent the API served names another deliverable");
    }
    this.core.progress("sign", `signing the on-chain consent to ${action} run ${runId} as ${signer.address}`);
    return {
      signer: signer.address,
      nonce: message.nonce,
      deadline: Number(message.deadline),
      signature: await signer.signTypedData(typed as never),
    };
  }

  /**
   * Claims an OPEN run for `agentId`; the signer is the agent's owner or wallet (it becomes walletAddress). The
   * on-chain consent is the token owner's: `opts.consentSigner` when `signer` is the generated wallet.
   */
  async claim(runId: number, opts: { agentId: number; signer: SignerLike } & AgentStepOptions) {
    const signer = toSigner(opts.signer);
    const signed = await this.core.signAction(signer, "claim-run", "run", runId);
    const consent = await this.consent(runId, "claim", opts.consentSigner ?? signer, { agentId: opts.agentId });
    return this.followed(
      runId,
      "CLAIMED",
      () =>
        this.core.call(
          this.core.api.POST("/api/runs/{id}/claim", {
            params: { path: { id: runId } },
            body: { agentId: opts.agentId, walletAddress: signer.address, ...signed, consent },
          }),
        ),
      async (confirmed) => {
        const agent = await this.core.call(
          this.core.api.GET("/api/agents/{id}", { params: { path: { id: opts.agentId } } }),
        );
        return {
          ...confirmed,
          agent: { id: opts.agentId, status: agent.status, stakedAmount: agent.stakedAmount },
        } as Answer<"/api/runs/{id}/claim", "post">;
      },
    );
  }

  start(runId: number, signer: SignerLike, opts: AgentStepOptions = {}) {
    return this.step(runId, "start", signer, opts.consentSigner);
  }

  /** Submits the work: `deliverable` (any JSON, stored under its CID, sha-256 on chain) or a `deliverableHash`. */
  async submit(runId: number, work: Deliverable, signer: SignerLike, opts: AgentStepOptions = {}) {
    const signed = await this.core.signAction(signer, "submit-run", "run", runId);
    const deliverableHash = "deliverable" in work ? deliverableHashOf(work.deliverable) : work.deliverableHash;
    const consent = await this.consent(runId, "submit", opts.consentSigner ?? signer, { deliverableHash });
    return this.followed(runId, "SUBMITTED", () =>
      this.core.call(
        this.core.api.POST("/api/runs/{id}/submit", {
          params: { path: { id: runId } },
          body: { ...work, ...signed, consent } as never,
        }),
      ),
    );
  }

  async requestRevision(runId: number, feedback: string, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "request-revision", "run", runId);
    const consent = await this.consent(runId, "requestRevision", signer);
    return this.followed(runId, "REVISION_REQUESTED", () =>
      this.core.call(
        this.core.api.POST("/api/runs/{id}/request-revision", {
          params: { path: { id: runId } },
          body: { feedback, ...signed, consent },
        }),
      ),
    );
  }

  /** Approves the submission: the reward goes to the agent token's owner, the fee to the treasury. */
  approve(runId: number, signer: SignerLike) {
    return this.step(runId, "approve", signer);
  }

  async reject(runId: number, reason: string, signer: SignerLike) {
    const signed = await this.core.signAction(signer, "reject-run", "run", runId);
    const consent = await this.consent(runId, "reject", signer);
    return this.followed(runId, "REJECTED", () =>
      this.core.call(
        this.core.api.POST("/api/runs/{id}/reject", {
          params: { path: { id: runId } },
          body: { reason, ...signed, consent },
        }),
      ),
    );
  }

  /** The poster or the agent disputes (the agent's consent: its token owner, `opts.consentSigner`). */
  async dispute(runId: number, reason: string, signer: SignerLike, opts: AgentStepOptions = {}) {
    const signed = await this.core.signAction(signer, "dispute-run", "run", runId);
    const consent = await this.consent(runId, "dispute", opts.consentSigner ?? signer);
    return this.followed(runId, "DISPUTED", () =>
      this.core.call(
        this.core.api.POST("/api/runs/{id}/dispute", {
          params: { path: { id: runId } },
          body: { reason, ...signed, consent },
        }),
      ),
    );
  }

  /** Cancels an OPEN run: reward + fee back to the poster. */
  cancel(runId: number, signer: SignerLike) {
    return this.step(runId, "cancel", signer);
  }

  /** 7 days (chain time) after a claim without a submission: refund and half the agent's stake to the poster. */
  timeoutSlash(runId: number, signer: SignerLike) {
    return this.step(runId, "timeout-slash", signer);
  }

  /** Operator only (admin token): resolves a dispute for the agent (paid) or the poster (slash, reopen). */
  resolve(runId: number, body: RequestBody<"/api/runs/{id}/resolve", "post">) {
    return this.core.call(this.core.api.POST("/api/runs/{id}/resolve", { params: { path: { id: runId } }, body }));
  }

  private async step(runId: number, step: Step, signer: SignerLike, consentSigner?: SignerLike) {
    const signed = await this.core.signAction(signer, STEP_ACTION[step], "run", runId);
    const action = STEP_CONSENT[step];
    const body = action ? { ...signed, consent: await this.consent(runId, action, consentSigner ?? signer) } : signed;
    const path = `/api/runs/{id}/${step}` as "/api/runs/{id}/start";
    return this.followed(runId, STEP_STATE[step], () =>
      this.core.call(this.core.api.POST(path, { params: { path: { id: runId } }, body: body as never })),
    );
  }

  /**
   * Sends a run write that leaves the run in `target`. When the API answers it pending (TX_PENDING,
   * INDEXER_LAGGING: on chain, not indexed yet), the run's history is read until an event in `target` follows the
   * ones seen before the write; the answer is then rebuilt from the run as indexed (`extend` adds what a step's
   * answer carries beyond the run).
   */
  private async followed<D>(
    runId: number,
    target: RunState,
    send: () => Promise<D>,
    extend?: (confirmed: RunActionAnswer) => Promise<D>,
  ): Promise<D> {
    if (!this.core.followsPending) return send();
    const seen = (await this.events(runId)).events.length;
    return this.core.followPending(`run ${runId} -> ${target}`, send, async () => {
      const event = (await this.events(runId)).events.slice(seen).find((e) => e.state === target);
      if (!event) return undefined;
      const confirmed: RunActionAnswer = {
        success: true,
        run: await this.get(runId),
        txHash: event.txHash,
        message: `run ${runId} is ${target} (confirmed after a pending answer)`,
      };
      return extend ? extend(confirmed) : (confirmed as D);
    });
  }
}

// Steps a poster and an agent take on a run, over real HTTP with real signatures (no ETH: the relayer submits).
import { RunEscrowAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import {
  type ClaimTerms,
  deliverableHashOf,
  type RunConsentAction,
  type RunTerms,
  runConsentTypedData,
  runFundingTypedData,
} from "@agenthub/sdk/protocol";
import type { Address, Hex } from "viem";
import { faucet, signedAction, walletFromKey } from "./agents.ts";
import { type ApiResponse, api, chain, db, deployments, newWallet, publicClient, stack, waitUntil } from "./stack.ts";

export const escrowAddress = deployments.contracts.RunEscrow.address;
const schema = stack.env.INDEXER_SCHEMA ?? "chain";

export async function chainTime(): Promise<bigint> {
  return (await publicClient.getBlock({ blockTag: "latest" })).timestamp;
}

export const usdcBalance = (address: Address) =>
  publicClient.readContract({
    address: deployments.usdc.address,
    abi: TestUSDCAbi,
    functionName: "balanceOf",
    args: [address],
  });

/** Rewards of approved runs RunEscrow still owes the agent (paid to its owner by the API's reward-payout job). */
export const rewardsOf = (agentId: number | bigint) =>
  publicClient.readContract({
    address: escrowAddress,
    abi: RunEscrowAbi,
    functionName: "rewardsOf",
    args: [BigInt(agentId)],
  });

/**
 * Waits until the escrow owes agent `agentId` no rewards: the API's payout job (api/src/jobs/reward-payout.ts, every
 * second in the e2e stack) has paid its approved runs to the agent token's owner, so the owner's balance is final.
 */
export async function rewardsPaidOut(agentId: number | bigint, timeoutMs = 30_000): Promise<void> {
  await waitUntil(`agent ${agentId}'s rewards paid out`, async () => (await rewardsOf(agentId)) === 0n, timeoutMs, 200);
}

export const escrowRun = (onchainRunId: string | bigint) =>
  publicClient.readContract({
    address: escrowAddress,
    abi: RunEscrowAbi,
    functionName: "getRun",
    args: [BigInt(onchainRunId)],
  });

/** A poster wallet holding `usdc` base units and no ETH. */
export async function newPoster(usdc = 1_000_000_000n) {
  const poster = newWallet();
  if (usdc > 0n) await faucet(poster.address, usdc);
  return poster;
}

export interface DraftOptions {
  reward?: bigint;
  /** Seconds from the current chain time. */
  deadlineIn?: number;
  maxRevisions?: number;
  title?: string;
  /** Agreed damages the draft declares; openRun also sets them in the InsurancePool after funding. */
  requiredCoverage?: bigint;
}

export async function createDraft(posterKey: Hex, posterAddress: Address, opts: DraftOptions = {}) {
  const deadline = new Date(Number((await chainTime()) + BigInt(opts.deadlineIn ?? 3 * 24 * 3600)) * 1000);
  const signed = await signedAction(posterKey, "create-run", "run", "new");
  return api("POST", "/api/runs", {
    body: {
      posterAddress,
      title: opts.title ?? `Run ${Math.random().toString(36).slice(2, 8)}`,
      description: "Write a function that adds two numbers, with tests.",
      reward: (opts.reward ?? 10_000_000n).toString(),
      deadline: deadline.toISOString(),
      ...(opts.maxRevisions === undefined ? {} : { maxRevisions: opts.maxRevisions }),
      ...(opts.requiredCoverage === undefined ? {} : { requiredCoverage: opts.requiredCoverage.toString() }),
      ...signed,
    },
  });
}

type FundableRun = Pick<
  RunBody,
  "bountyId" | "reward" | "fee" | "deadline" | "maxRevisions" | "ipfsHash" | "requiredCoverage"
>;

/**
 * `key`'s EIP-3009 authorization of the run's reward + fee to the escrow, bound to the run's terms as the draft
 * shows them (`terms` overrides one to sign for something else, `value` the amount).
 */
export async function signFundingAuthorization(
  key: Hex,
  run: FundableRun,
  opts: { terms?: Partial<RunTerms>; value?: bigint; validBefore?: bigint } = {},
) {
  const { account } = walletFromKey(key);
  const validBefore = opts.validBefore ?? (await chainTime()) + 3600n;
  const signature = await account.signTypedData(
    runFundingTypedData({
      token: deployments.usdc,
      chainId: chain.id,
      escrow: escrowAddress,
      terms: {
        poster: account.address,
        reward: BigInt(run.reward),
        deadline: BigInt(Math.floor(Date.parse(run.deadline) / 1000)),
        maxRevisions: run.maxRevisions,
        cover: BigInt(run.requiredCoverage),
        metadataUri: run.ipfsHash,
        ...opts.terms,
      },
      value: opts.value ?? BigInt(run.reward) + BigInt(run.fee),
      validBefore,
    }),
  );
  return { validBefore: Number(validBefore), signature };
}

/** POST /fund with the poster's terms-bound EIP-3009 authorization (the relayer submits it). */
export async function fundWithAuthorization(posterKey: Hex, run: FundableRun) {
  const authorization = await signFundingAuthorization(posterKey, run);
  const signed = await signedAction(posterKey, "fund-run", "run", run.bountyId);
  return api("POST", `/api/runs/${run.bountyId}/fund`, { body: { ...signed, authorization } });
}

/** A funded (OPEN) run, its declared cover fixed on chain by the funding; throws unless every step succeeds. */
export async function openRun(poster: { key: Hex; address: Address }, opts: DraftOptions = {}) {
  const draft = await createDraft(poster.key, poster.address, opts);
  if (draft.status !== 201) throw new Error(`create failed: ${draft.status} ${JSON.stringify(draft.body)}`);
  const funded = await fundWithAuthorization(poster.key, draft.body.run);
  if (funded.status !== 200) throw new Error(`fund failed: ${funded.status} ${JSON.stringify(funded.body)}`);
  return funded.body.run as RunBody;
}

export interface RunBody {
  bountyId: number;
  onchainRunId: string | null;
  state: string;
  reward: string;
  fee: string;
  /** ISO time of the (on-chain once funded) deadline. */
  deadline: string;
  maxRevisions: number;
  /** The request document's URI: the run's on-chain metadataUri. */
  ipfsHash: string;
  /** The cover (agreed damages) the draft declares, a term the funding fixes on chain ("0": none). */
  requiredCoverage: string;
  [k: string]: unknown;
}

/** The escrow action (its ...BySig function) behind each relayed step path; timeout-slash and fund need none. */
export const CONSENT_ACTION: Record<string, RunConsentAction | undefined> = {
  claim: "claim",
  start: "start",
  submit: "submit",
  approve: "approve",
  "request-revision": "requestRevision",
  reject: "reject",
  dispute: "dispute",
  cancel: "cancel",
};

/**
 * `key` signs its on-chain consent to `action` on run `id`, as GET /api/runs/:id/consent describes it (the signer's
 * next nonce, an hour of chain time). When the API has nothing to sign (a draft, a run without agent) the consent
 * is well-formed but signed for no run, so the API's own checks answer first, as they would for any client.
 */
export async function signConsent(
  key: Hex,
  id: number,
  action: RunConsentAction,
  extra: { agentId?: number; deliverableHash?: Hex; terms?: Partial<ClaimTerms> } = {},
) {
  const { account } = walletFromKey(key);
  const query = new URLSearchParams({ action, signer: account.address });
  if (extra.agentId !== undefined) query.set("agentId", String(extra.agentId));
  if (extra.deliverableHash !== undefined) query.set("deliverableHash", extra.deliverableHash);
  const res = await api("GET", `/api/runs/${id}/consent?${query}`);
  const m = res.status === 200 ? res.body.typedData.message : undefined;
  const deadline = m ? BigInt(m.deadline) : (await chainTime()) + 3600n;
  const nonce = m ? BigInt(m.nonce) : 0n;
  const typed = runConsentTypedData({
    escrow: escrowAddress,
    chainId: chain.id,
    action,
    runId: m ? BigInt(m.runId) : 0n,
    agentId: m ? BigInt(m.agentId) : 0n,
    deliverableHash: m?.deliverableHash,
    terms: m
      ? {
          poster: m.terms.poster,
          reward: BigInt(m.terms.reward),
          deadline: BigInt(m.terms.deadline),
          maxRevisions: BigInt(m.terms.maxRevisions),
          cover: BigInt(m.terms.cover),
          ...extra.terms,
        }
      : undefined,
    nonce,
    deadline,
  });
  return {
    signer: account.address,
    nonce: nonce.toString(),
    deadline: Number(deadline),
    signature: await account.signTypedData(typed),
  };
}

export interface StepOptions {
  /**
   * Who signs the on-chain consent (default `key`): the agent token's owner when `key` is the agent's generated
   * wallet after a human claimed the agent (the escrow takes only the owner's consent).
   */
  consentKey?: Hex;
  /** An approval returns without waiting for the reward payout (tests of the payout itself). */
  skipPayoutWait?: boolean;
}

/**
 * POST /api/runs/:id/<path> signed by `key` for `action`, with extra body fields; relayed steps also carry the
 * consent of `opts.consentKey ?? key` unless `extra` has one.
 */
export async function step(
  key: Hex,
  id: number,
  path: string,
  action: string,
  extra: Record<string, unknown> = {},
  opts: StepOptions = {},
): Promise<ApiResponse> {
  const signed = await signedAction(key, action, "run", id);
  const consentAction = CONSENT_ACTION[path];
  const body: Record<string, unknown> = { ...signed, ...extra };
  if (consentAction && !("consent" in extra)) {
    const hash =
      extra.deliverable !== undefined
        ? deliverableHashOf(extra.deliverable)
        : (extra.deliverableHash as Hex | undefined);
    body.consent = await signConsent(opts.consentKey ?? key, id, consentAction, { deliverableHash: hash });
  }
  const res = await api("POST", `/api/runs/${id}/${path}`, { body });
  // An approval credits the agent; its owner is paid by the next payout. Tests go on once it is paid, so every
  // balance they read afterwards is final.
  if (path === "approve" && res.status === 200 && !opts.skipPayoutWait) await rewardsPaidOut(res.body.run.claimedBy);
  return res;
}

export async function claim(key: Hex, walletAddress: Address, id: number, agentId: number, opts: StepOptions = {}) {
  const signed = await signedAction(key, "claim-run", "run", id);
  const consent = await signConsent(opts.consentKey ?? key, id, "claim", { agentId });
  return api("POST", `/api/runs/${id}/claim`, { body: { agentId, walletAddress, ...signed, consent } });
}

export const adminHeaders = () => ({ authorization: `Bearer ${stack.secrets.adminToken}` });

/** Fees the escrow kept on completed runs and has not swept to the treasury yet. */
export const feesAccrued = () =>
  publicClient.readContract({ address: escrowAddress, abi: RunEscrowAbi, functionName: "feesAccrued" });

/**
 * The escrow invariant, three ways: its USDC balance, its own ledger (totalOwed) and the indexed sum of what it
 * owes (reward + fee of runs still held, fees kept on completed runs not swept yet, agents' unpaid rewards, credits
 * of failed payments)
 * must all agree.
 */
export async function escrowLedger() {
  const [balance, owed, held] = await Promise.all([
    usdcBalance(escrowAddress),
    publicClient.readContract({ address: escrowAddress, abi: RunEscrowAbi, functionName: "totalOwed" }),
    db.query<{ s: string }>(
      `select ((select coalesce(sum(reward + fee), 0) from ${schema}.run
                 where state in ('Open', 'Claimed', 'InProgress', 'Submitted', 'RevisionRequested', 'Disputed'))
             + (select coalesce(sum(fee), 0) from ${schema}.run where state = 'Completed')
             - (select coalesce(sum(amount), 0) from ${schema}.fee_sweep)
             + (select coalesce(sum(unpaid), 0) from ${schema}.agent_reward)
             + (select coalesce(sum(amount), 0) from ${schema}.payment_credit where contract = 'RunEscrow'))::text s`,
    ),
  ]);
  return { balance, owed, held: BigInt(held.rows[0]!.s) };
}

// Steps a poster and an agent take on a run, over real HTTP with real signatures (no ETH: the relayer submits).
import { RunEscrowAbi, TestUSDCAbi } from "@agenthub/common/generated/abis";
import type { Address, Hex } from "viem";
import { faucet, signedAction, signPermit } from "./agents.ts";
import { type ApiResponse, api, db, deployments, newWallet, publicClient, stack } from "./stack.ts";

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
      ...signed,
    },
  });
}

export async function fundWithPermit(posterKey: Hex, run: { bountyId: number; reward: string; fee: string }) {
  const value = BigInt(run.reward) + BigInt(run.fee);
  const deadline = (await chainTime()) + 3600n;
  const permitSignature = await signPermit(posterKey, escrowAddress, value, deadline);
  const signed = await signedAction(posterKey, "fund-run", "run", run.bountyId);
  return api("POST", `/api/runs/${run.bountyId}/fund`, {
    body: { ...signed, permit: { deadline: Number(deadline), signature: permitSignature } },
  });
}

/** A funded (OPEN) run; throws unless both steps succeed. */
export async function openRun(poster: { key: Hex; address: Address }, opts: DraftOptions = {}) {
  const draft = await createDraft(poster.key, poster.address, opts);
  if (draft.status !== 201) throw new Error(`create failed: ${draft.status} ${JSON.stringify(draft.body)}`);
  const funded = await fundWithPermit(poster.key, draft.body.run);
  if (funded.status !== 200) throw new Error(`fund failed: ${funded.status} ${JSON.stringify(funded.body)}`);
  return funded.body.run as RunBody;
}

export interface RunBody {
  bountyId: number;
  onchainRunId: string | null;
  state: string;
  reward: string;
  fee: string;
  [k: string]: unknown;
}

/** POST /api/runs/:id/<path> signed by `key` for `action`, with extra body fields. */
export async function step(
  key: Hex,
  id: number,
  path: string,
  action: string,
  extra: Record<string, unknown> = {},
): Promise<ApiResponse> {
  const signed = await signedAction(key, action, "run", id);
  return api("POST", `/api/runs/${id}/${path}`, { body: { ...signed, ...extra } });
}

export async function claim(key: Hex, walletAddress: Address, id: number, agentId: number) {
  const signed = await signedAction(key, "claim-run", "run", id);
  return api("POST", `/api/runs/${id}/claim`, { body: { agentId, walletAddress, ...signed } });
}

export const adminHeaders = () => ({ authorization: `Bearer ${stack.secrets.adminToken}` });

/** Fees the escrow kept on completed runs and has not swept to the treasury yet. */
export const feesAccrued = () =>
  publicClient.readContract({ address: escrowAddress, abi: RunEscrowAbi, functionName: "feesAccrued" });

/**
 * The escrow invariant, three ways: its USDC balance, its own ledger (totalOwed) and the indexed sum of what it
 * owes (reward + fee of runs still held, fees kept on completed runs not swept yet, credits of failed payments)
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
             + (select coalesce(sum(amount), 0) from ${schema}.payment_credit where contract = 'RunEscrow'))::text s`,
    ),
  ]);
  return { balance, owed, held: BigInt(held.rows[0]!.s) };
}

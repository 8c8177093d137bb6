// Group commit for identity mints: registrations that arrive while earlier batches are in flight are minted together
// in one AgentIdentity.mintBatch transaction, so a burst costs a few transactions and blocks instead of one each.
// A registration arriving when the pipe is free goes out at once (no added latency when idle).
//
// Exactly one mint per wallet, across retries and API processes: a request attempt holds a lease on its wallet's mint
// until the wallet is recorded in a batch (under the batch's relayer idempotency key), and only the lease holder can
// record it. A retry joins the attempt in this process, resends the recorded batch (the relayer answers the first
// transaction), waits for a live lease elsewhere, or takes an expired lease over.
import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { MAX_MINT_BATCH } from "@agenthub/common";
import { AgentIdentityAbi } from "@agenthub/common/generated/abis";
import type { RelayerClient } from "@agenthub/relayer/client";
import type pg from "pg";
import type { Abi, Address } from "viem";
import { ApiError } from "../errors.ts";
import { eventArgs } from "../lib/events.ts";
import {
  type BatchEntry,
  batchEntries,
  type MintRecord,
  mintStateOf,
  recordBatch,
  SINGLE_MINT,
  takeMintLease,
} from "./mint-store.ts";

/** Batches in flight at once: one being mined while the next one fills. */
const MAX_IN_FLIGHT = 2;
/** How long a retry waits for a lease held by another attempt before answering 409 (the client retries). */
const RESUME_WAIT_MS = 10_000;

export interface Minted {
  agentId: number;
  txHash: string;
  blockNumber: string;
}

interface Waiting extends BatchEntry {
  resolve: (minted: Minted) => void;
  reject: (error: unknown) => void;
}

type RelayResult = Awaited<ReturnType<RelayerClient["call"]>>;

const inProgress = (message: string) => new ApiError(409, "REQUEST_IN_PROGRESS", message);

export class MintBatcher {
  private queue: Waiting[] = [];
  private inFlight = 0;
  /** This process's mints not settled yet, by wallet (a retry joins them). */
  private readonly pending = new Map<string, Promise<Minted>>();

  constructor(
    private readonly pool: pg.Pool,
    private readonly relayer: RelayerClient,
    /** Lease length: covers the wait for a batch; expired leases are taken over by retries. */
    readonly leaseSeconds: number,
  ) {}

  /** Mints an identity to `wallet`, whose api.agent_wallet row holds `lease`; answers the token id. */
  mint(entry: BatchEntry): Promise<Minted> {
    const minted = new Promise<Minted>((resolve, reject) => {
      this.queue.push({ ...entry, resolve, reject });
      this.flush();
    });
    this.pending.set(entry.wallet, minted);
    const forget = () => this.pending.delete(entry.wallet);
    minted.then(forget, forget);
    return minted;
  }

  /** A registration retried after its answer was lost: the same mint, never a second one. */
  async resume(wallet: string, uri: string): Promise<Minted> {
    const giveUpAt = Date.now() + RESUME_WAIT_MS;
    for (;;) {
      const joined = this.pending.get(wallet);
      if (joined) return joined;
      const state = await mintStateOf(this.pool, wallet);
      if (state.kind === "sent") return this.resend(wallet, uri, state.record);
      if (state.kind === "gone") throw inProgress("the earlier request with this Idempotency-Key failed");
      if (state.kind === "free") {
        const lease = await takeMintLease(this.pool, wallet, this.leaseSeconds);
        if (lease) return this.mint({ wallet, uri, lease });
        continue;
      }
      if (Date.now() > giveUpAt) {
        throw inProgress("the first request with this Idempotency-Key is still minting; retry in a few seconds");
      }
      await sleep(100);
    }
  }

  private async resend(wallet: string, uri: string, record: MintRecord): Promise<Minted> {
    if (record.position === SINGLE_MINT) {
      const args = [wallet as Address, uri] as const;
      return mintedFor(await this.relayer.call("AgentIdentity", AgentIdentityAbi, "mint", args, record.key), wallet);
    }
    return mintedFor(await this.send(record.key, await batchEntries(this.pool, record.key)), wallet);
  }

  private flush(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.queue.length > 0) {
      const batch = this.queue.splice(0, MAX_MINT_BATCH);
      this.inFlight++;
      this.mintBatch(batch).finally(() => {
        this.inFlight--;
        this.flush();
      });
    }
  }

  private async mintBatch(batch: Waiting[]): Promise<void> {
    try {
      const key = `mintBatch:${createHash("sha256")
        .update(batch.map((w) => `${w.wallet}:${w.lease}`).join(","))
        .digest("hex")}`;
      const held = await recordBatch(this.pool, key, batch);
      const sending = batch.filter((w) => held.has(w.wallet));
      for (const lost of batch.filter((w) => !held.has(w.wallet))) {
        lost.reject(inProgress("another attempt took this registration over; retry with the same Idempotency-Key"));
      }
      if (sending.length === 0) return;
      const result = await this.send(key, sending);
      // The batch's logs decoded once (not once per wallet: a batch of 50 has ~100 logs).
      const minted = mintedByWallet(result);
      for (const waiting of sending) {
        const mine = minted.get(waiting.wallet.toLowerCase());
        if (mine) waiting.resolve(mine);
        else waiting.reject(new Error(`transaction ${result.txHash} minted nothing to ${waiting.wallet}`));
      }
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  }

  private send(key: string, entries: readonly Omit<BatchEntry, "lease">[]): Promise<RelayResult> {
    const wallets = entries.map((e) => e.wallet as Address);
    const uris = entries.map((e) => e.uri);
    return this.relayer.call("AgentIdentity", AgentIdentityAbi, "mintBatch", [wallets, uris], key);
  }
}

/** The tokens a mint or mintBatch transaction minted, by wallet (lower case). */
function mintedByWallet(result: RelayResult): Map<string, Minted> {
  const registered = eventArgs<{ agentId: bigint; wallet: string }>(
    AgentIdentityAbi as Abi,
    result.logs,
    "AgentRegistered",
  );
  return new Map(
    registered.map((event) => [
      event.wallet.toLowerCase(),
      { agentId: Number(event.agentId), txHash: result.txHash, blockNumber: result.blockNumber },
    ]),
  );
}

/** The token minted to `wallet` in a mint or mintBatch transaction. */
function mintedFor(result: RelayResult, wallet: string): Minted {
  const minted = mintedByWallet(result).get(wallet.toLowerCase());
  if (!minted) throw new Error(`transaction ${result.txHash} minted nothing to ${wallet}`);
  return minted;
}

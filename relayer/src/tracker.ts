// Watches every transaction this signer has in flight until one of its versions is mined. The lowest-nonce one
// (every later nonce waits behind it), or any one priced below the current base fee, is re-signed at the same nonce
// with higher fees once it has waited N blocks or T seconds. Also keeps an eye on the signer's ETH balance.
import {
  type Address,
  BaseError,
  type Hex,
  HttpRequestError,
  type PrivateKeyAccount,
  type PublicClient,
  TimeoutError,
  type TransactionReceipt,
} from "viem";
import { errorMessage, RelayError } from "./errors.ts";
import { FeeCapReached, type Fees, replacementFees } from "./fees.ts";
import type { RelayerMetrics } from "./metrics.ts";
import type { RelayerOptions } from "./relayer.ts";
import type { Attempt } from "./store.ts";

export interface OutgoingTx {
  to: Address;
  data: Hex;
  value: bigint;
  /** `<target>.<function>` for logs and metrics. */
  label: string;
}

export interface InFlight extends OutgoingTx {
  id: string;
  nonce: number;
  gas: bigint;
  attempts: Attempt[];
  /** Resolves with the receipt of whichever version was mined. */
  mined: Promise<TransactionReceipt>;
  /** Chain head and time when the nonce was first seen used by none of this row's versions. */
  missingSince?: { block: bigint; at: number };
  /** The fee cap stops further replacements (logged once). */
  capped?: boolean;
}

/** The replacement policy comes from the relayer's options (see relayer/src/env.ts for each knob). */
export interface TrackerOptions
  extends Pick<
    RelayerOptions,
    | "store"
    | "logger"
    | "pollIntervalMs"
    | "replaceAfterBlocks"
    | "replaceAfterMs"
    | "feeBumpPercent"
    | "maxFeePerGas"
    | "minBalanceWei"
  > {
  client: PublicClient;
  account: PrivateKeyAccount;
  metrics: RelayerMetrics;
  sign(tx: OutgoingTx & { gas: bigint }, nonce: number, fees: Fees): Promise<{ serialized: Hex; hash: Hex }>;
  estimateFees(): Promise<Fees>;
}

/** How a node answered a broadcast. */
export type SendOutcome = "accepted" | "nonce-used" | "underpriced" | "unknown" | "rejected";

export function classifySendError(error: unknown): SendOutcome {
  const text = error instanceof BaseError ? `${error.message} ${error.details}` : String(error);
  if (/already known|already imported|known transaction/i.test(text)) return "accepted";
  if (/nonce too low|nonce has already been used|nonce is too low/i.test(text)) return "nonce-used";
  if (/underpriced|fee too low|replacement/i.test(text)) return "underpriced";
  if (error instanceof BaseError && error.walk((e) => e instanceof HttpRequestError || e instanceof TimeoutError))
    return "unknown";
  return "rejected";
}

const BALANCE_CHECK_MS = 30_000;
const LOW_BALANCE_REPEAT_MS = 10 * 60_000;
/** A nonce used by none of our versions must stay so this long before the row is given up (lagging nodes). */
const MISSING_BLOCKS = 5n;
const MISSING_MS = 30_000;

export class Tracker {
  private readonly inflight = new Map<
    string,
    InFlight & { resolve(r: TransactionReceipt): void; reject(e: Error): void }
  >();
  private timer: NodeJS.Timeout | undefined;
  private ticking: Promise<void> | undefined;
  private stopped = false;
  private balance: { wei: bigint; at: number } | undefined;
  private balanceCheckedAt = 0;
  private lowWarnedAt = 0;
  private failingSince: number | undefined;
  private lastFailureLog = 0;

  constructor(private readonly opts: TrackerOptions) {}

  get address(): Address {
    return this.opts.account.address;
  }

  /** Loads this signer's in-flight rows from the database and starts the watch loop. */
  async start(): Promise<void> {
    for (const row of await this.opts.store.inFlight(this.address)) {
      if (row.nonce === null || !row.gas || !row.to_address || row.attempts.length === 0) continue;
      this.track({
        id: row.id,
        nonce: Number(row.nonce),
        to: row.to_address as Address,
        data: row.data as Hex,
        value: BigInt(row.value),
        gas: BigInt(row.gas),
        label: `${row.target}.${row.function_name}`,
        attempts: row.attempts,
      });
    }
    if (this.inflight.size > 0) this.opts.logger.info({ count: this.inflight.size }, "resuming in-flight transactions");
    await this.checkBalance(true).catch((err) => this.opts.logger.warn({ err: errorMessage(err) }, "balance check"));
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.ticking;
  }

  track(tx: Omit<InFlight, "mined">): InFlight {
    let resolve!: (r: TransactionReceipt) => void;
    let reject!: (e: Error) => void;
    const mined = new Promise<TransactionReceipt>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    mined.catch(() => {}); // nobody may be waiting (the request timed out): not an unhandled rejection
    const entry = { ...tx, mined, resolve, reject };
    this.inflight.set(tx.id, entry);
    return entry;
  }

  untrack(id: string): void {
    this.inflight.delete(id);
  }

  get(id: string): InFlight | undefined {
    return this.inflight.get(id);
  }

  highestNonce(): number {
    let highest = -1;
    for (const tx of this.inflight.values()) highest = Math.max(highest, tx.nonce);
    return highest;
  }

  /** The receipt of `tx`, or RECEIPT_TIMEOUT after `timeoutMs` (the transaction stays tracked). */
  async wait(tx: InFlight, timeoutMs: number): Promise<TransactionReceipt> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const hash = tx.attempts.at(-1)?.hash as Hex | undefined;
        reject(new RelayError("RECEIPT_TIMEOUT", `no receipt for ${hash} yet; it is tracked`, undefined, hash));
      }, timeoutMs);
    });
    try {
      return await Promise.race([tx.mined, timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  status() {
    let oldest: number | undefined;
    for (const tx of this.inflight.values()) {
      const first = tx.attempts[0]?.sentAt.getTime();
      if (first !== undefined && (oldest === undefined || first < oldest)) oldest = first;
    }
    return {
      pending: this.inflight.size,
      oldestPendingSeconds: oldest === undefined ? 0 : Math.max(0, (Date.now() - oldest) / 1000),
      balanceWei: this.balance?.wei.toString() ?? null,
      balanceLow: this.balance ? this.balance.wei < this.opts.minBalanceWei : null,
      minBalanceWei: this.opts.minBalanceWei.toString(),
    };
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick()
        .then(() => {
          this.failingSince = undefined;
        })
        .catch((err) => {
          // An RPC outage fails every tick: say so once, then every half minute while it lasts.
          const now = Date.now();
          if (this.failingSince === undefined || now - this.lastFailureLog >= BALANCE_CHECK_MS) {
            this.failingSince ??= now;
            this.lastFailureLog = now;
            this.opts.logger.warn(
              { err: errorMessage(err), failingForSeconds: Math.round((now - this.failingSince) / 1000) },
              "transaction tracker cannot reach the chain",
            );
          }
        })
        .finally(() => this.schedule());
    }, this.opts.pollIntervalMs);
  }

  private async tick(): Promise<void> {
    await this.checkBalance(false);
    this.opts.metrics.setInFlight(this.status());
    if (this.inflight.size === 0) return;
    const { client } = this.opts;
    const [head, used] = await Promise.all([
      client.getBlockNumber({ cacheTime: 0 }),
      client.getTransactionCount({ address: this.address, blockTag: "latest" }),
    ]);
    const byNonce = [...this.inflight.values()].sort((a, b) => a.nonce - b.nonce);
    for (const tx of byNonce) if (tx.nonce < used) await this.settle(tx, head);

    const waiting = byNonce.filter((tx) => tx.nonce >= used && this.inflight.has(tx.id));
    let baseFee: bigint | undefined;
    for (const [i, tx] of waiting.entries()) {
      const last = tx.attempts.at(-1)!;
      const due =
        head - last.sentBlock >= BigInt(this.opts.replaceAfterBlocks) ||
        Date.now() - last.sentAt.getTime() >= this.opts.replaceAfterMs;
      if (!due) continue;
      if (i > 0) {
        baseFee ??= (await client.getBlock({ blockTag: "latest" })).baseFeePerGas ?? 0n;
        if (last.maxFeePerGas >= baseFee) continue; // only waiting behind the lowest nonce: no bump needed
      }
      await this.replace(tx, head);
    }
    this.opts.metrics.setInFlight(this.status());
  }

  /** The nonce is used: find which version was mined and finish the row. */
  private async settle(tx: InFlight, head: bigint): Promise<void> {
    for (const attempt of [...tx.attempts].reverse()) {
      const receipt = await this.opts.client
        .getTransactionReceipt({ hash: attempt.hash as Hex })
        .catch(() => undefined);
      if (receipt) return this.finish(tx, receipt);
    }
    // Used by a transaction we never signed for this row (the key used elsewhere), or a node not caught up yet.
    tx.missingSince ??= { block: head, at: Date.now() };
    if (head - tx.missingSince.block < MISSING_BLOCKS && Date.now() - tx.missingSince.at < MISSING_MS) return;
    const message = `nonce ${tx.nonce} was used by a transaction this relayer did not send for this request`;
    await this.opts.store.finish(tx.id, "FAILED", { error: message });
    this.inflight.get(tx.id)?.reject(new RelayError("TX_FAILED", message));
    this.inflight.delete(tx.id);
    this.opts.metrics.transactions.inc({ function: tx.label, outcome: "dropped" });
    this.opts.logger.error({ id: tx.id, nonce: tx.nonce, call: tx.label }, message);
  }

  private async finish(tx: InFlight, receipt: TransactionReceipt): Promise<void> {
    const success = receipt.status === "success";
    await this.opts.store.finish(tx.id, success ? "SUCCESS" : "REVERTED", {
      txHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber,
      gasUsed: receipt.gasUsed,
      error: success ? undefined : "reverted on chain",
    });
    const entry = this.inflight.get(tx.id);
    this.inflight.delete(tx.id);
    entry?.resolve(receipt);
    this.opts.metrics.transactions.inc({ function: tx.label, outcome: success ? "success" : "reverted" });
    const log = {
      id: tx.id,
      call: tx.label,
      nonce: tx.nonce,
      hash: receipt.transactionHash,
      block: receipt.blockNumber.toString(),
      gasUsed: receipt.gasUsed.toString(),
      versions: tx.attempts.length,
    };
    if (success) this.opts.logger.info(log, "transaction mined");
    else this.opts.logger.warn(log, "transaction reverted");
  }

  /** Signs the same call at the same nonce with higher fees, records it, then broadcasts it. */
  private async replace(tx: InFlight, head: bigint): Promise<void> {
    const last = tx.attempts.at(-1)!;
    let fees: Fees;
    try {
      fees = replacementFees(last, await this.opts.estimateFees(), this.opts.feeBumpPercent, this.opts.maxFeePerGas);
    } catch (error) {
      if (!(error instanceof FeeCapReached)) throw error;
      if (!tx.capped) this.opts.logger.error({ id: tx.id, nonce: tx.nonce, err: error.message }, "stuck at fee cap");
      tx.capped = true;
      return;
    }
    tx.capped = false;
    const signed = await this.opts.sign(tx, tx.nonce, fees);
    const attempt: Attempt = { hash: signed.hash, ...fees, sentBlock: head, sentAt: new Date() };
    await this.opts.store.attempt(tx.id, tx.nonce, tx.gas, attempt, true);
    tx.attempts.push(attempt);
    this.opts.metrics.replacements.inc();
    this.opts.logger.warn(
      {
        id: tx.id,
        call: tx.label,
        nonce: tx.nonce,
        replaces: last.hash,
        hash: signed.hash,
        maxFeePerGas: fees.maxFeePerGas.toString(),
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas.toString(),
        waitedBlocks: (head - last.sentBlock).toString(),
      },
      "transaction not mined in time: replaced with a higher fee",
    );
    try {
      await this.opts.client.sendRawTransaction({ serializedTransaction: signed.serialized });
    } catch (error) {
      // Mined meanwhile (nonce used), refused as too cheap (the next bump starts from this version), or unclear:
      // the next tick sorts it out either way.
      this.opts.logger.warn(
        { id: tx.id, hash: signed.hash, outcome: classifySendError(error), err: errorMessage(error) },
        "replacement not accepted",
      );
    }
  }

  private async checkBalance(force: boolean): Promise<void> {
    const now = Date.now();
    if (!force && now - this.balanceCheckedAt < BALANCE_CHECK_MS) return;
    this.balanceCheckedAt = now; // also when the read fails: retried in 30 s, not on every tick
    const wei = await this.opts.client.getBalance({ address: this.address });
    this.balance = { wei, at: now };
    this.opts.metrics.setBalance(wei, this.opts.minBalanceWei);
    if (wei < this.opts.minBalanceWei && now - this.lowWarnedAt >= LOW_BALANCE_REPEAT_MS) {
      this.lowWarnedAt = now;
      this.opts.logger.warn(
        { address: this.address, balanceWei: wei.toString(), minBalanceWei: this.opts.minBalanceWei.toString() },
        "relayer signer balance is low: fund it before transactions start failing",
      );
    }
    if (wei >= this.opts.minBalanceWei) this.lowWarnedAt = 0;
  }
}

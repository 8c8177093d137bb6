// One signer, one nonce lane: simulate, sign, record, broadcast, and track every transaction until it is mined.
// A transaction not mined after a few blocks is replaced at the same nonce with higher fees (see tracker.ts), so one
// stuck transaction never blocks the ones after it.
import { agentHubChain, type Deployments } from "@agenthub/common";
import type { Logger } from "pino";
import type { Registry } from "prom-client";
import {
  type Abi,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  decodeErrorResult,
  ExecutionRevertedError,
  type Hex,
  keccak256,
  type PrivateKeyAccount,
  type PublicClient,
  type TransactionReceipt,
  type Transport,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { allErrorsAbi, checkAllowed, type RelayScope, type RelayTarget } from "./allowlist.ts";
import { errorMessage, RelayError } from "./errors.ts";
import { type Fees, initialFees } from "./fees.ts";
import { RelayerMetrics } from "./metrics.ts";
import type { Attempt, TxRow, TxStore } from "./store.ts";
import { classifySendError, type InFlight, type OutgoingTx, Tracker } from "./tracker.ts";

export interface RelayRequest {
  target: RelayTarget;
  data: Hex;
  /** Same key, same transaction: a retried request never sends a second one. */
  idempotencyKey?: string;
  /** What the API request named (agent, run, subscription, account): scoped functions act on nothing else. */
  scope?: RelayScope;
}

import type { RelayLog, RelayResult } from "./protocol.ts";

export { RelayError, type RelayErrorCode } from "./errors.ts";
export type { RelayLog, RelayResult };

/** A minimal async mutex: nonces are handed out strictly in order. */
class Lane {
  private tail: Promise<void> = Promise.resolve();
  run<T>(fn: () => Promise<T>): Promise<T> {
    const result = this.tail.then(fn);
    this.tail = result.then(
      () => {},
      () => {},
    );
    return result;
  }
}

export interface RelayerOptions {
  rpcUrls: string[];
  transport: Transport;
  privateKey: Hex;
  deployments: Deployments;
  store: TxStore;
  logger: Logger;
  registry: Registry;
  receiptTimeoutMs: number;
  pollIntervalMs: number;
  replaceAfterBlocks: number;
  replaceAfterMs: number;
  feeBumpPercent: number;
  maxFeePerGas: bigint;
  minBalanceWei: bigint;
}

export class Relayer {
  readonly account: PrivateKeyAccount;
  readonly publicClient: PublicClient;
  readonly metrics: RelayerMetrics;
  private readonly tracker: Tracker;
  private readonly lane = new Lane();
  private nextNonce: number | undefined;
  /**
   * Submissions in progress in this process by idempotency key: a request with a key already in progress shares its
   * answer. Registered before the row exists, so a second request never reads the first's fresh row (PENDING, this
   * signer's) as a crash before sending and sends the call again.
   */
  private readonly inProgress = new Map<string, Promise<RelayResult>>();

  constructor(private readonly opts: RelayerOptions) {
    this.account = privateKeyToAccount(opts.privateKey);
    this.publicClient = createPublicClient({
      // The chain's id and currency; requests go through `transport` (one URL or a fallback over several).
      chain: agentHubChain(opts.rpcUrls[0]!),
      transport: opts.transport,
      pollingInterval: Math.min(opts.pollIntervalMs, 1000),
    });
    this.metrics = new RelayerMetrics(opts.registry);
    this.tracker = new Tracker({
      ...opts,
      client: this.publicClient,
      account: this.account,
      metrics: this.metrics,
      sign: (tx, nonce, fees) => this.sign(tx, nonce, fees),
      estimateFees: () => this.estimateFees(),
    });
  }

  get address(): Address {
    return this.account.address;
  }

  /** Picks up this signer's transactions left in flight by an earlier run, and starts watching them. */
  async start(): Promise<void> {
    const foreign = await this.opts.store.foreignInFlight(this.address);
    if (foreign > 0)
      this.opts.logger.warn({ count: foreign }, "sent transactions of other signers in the database are not tracked");
    await this.tracker.start();
  }

  stop(): Promise<void> {
    return this.tracker.stop();
  }

  /** In-flight count, age of the oldest, and the signer balance (for /ready and the API's metrics). */
  status() {
    return { address: this.address, ...this.tracker.status() };
  }

  addressOf(target: RelayTarget): Address {
    return target === "USDC" ? this.opts.deployments.usdc.address : this.opts.deployments.contracts[target].address;
  }

  async submit(request: RelayRequest): Promise<RelayResult> {
    const check = checkAllowed(request.target, request.data, {
      runEscrow: this.opts.deployments.contracts.RunEscrow.address,
      relayer: this.account.address,
      scope: request.scope,
    });
    if (!check.ok) throw new RelayError("NOT_ALLOWED", check.reason);
    const key = request.idempotencyKey;
    if (key === undefined) return this.submitChecked(request, check);
    const running = this.inProgress.get(key);
    if (running) return running;
    const work = this.submitChecked(request, check);
    this.inProgress.set(key, work);
    const forget = () => this.inProgress.delete(key);
    work.then(forget, forget);
    return work;
  }

  private async submitChecked(
    request: RelayRequest,
    { functionName, abi }: { functionName: string; abi: Abi },
  ): Promise<RelayResult> {
    const to = this.addressOf(request.target);
    const { row, created } = await this.opts.store.begin({
      key: request.idempotencyKey,
      signer: this.address,
      target: request.target,
      functionName,
      to,
      data: request.data,
    });
    if (!created) {
      const resolved = await this.resume(row);
      if (resolved) return resolved;
      await this.opts.store.retry(row.id, this.address);
    }
    return this.run(row.id, { to, data: request.data, value: 0n, label: `${request.target}.${functionName}` }, abi);
  }

  /** Sends plain ETH (local faucet only); tracked and replaced like every other transaction. */
  async sendValue(to: Address, value: bigint): Promise<Hex> {
    return this.sendTracked({ to, data: "0x", value, label: "faucet.eth" });
  }

  /** Sends a call outside the allowlist (local faucet only: TestUSDC mint). */
  async sendRaw(to: Address, data: Hex): Promise<Hex> {
    return this.sendTracked({ to, data, value: 0n, label: "faucet.mint" });
  }

  private async sendTracked(tx: { to: Address; data: Hex; value: bigint; label: string }): Promise<Hex> {
    const [target, functionName] = tx.label.split(".") as [string, string];
    const { row } = await this.opts.store.begin({ signer: this.address, target, functionName, ...tx });
    return (await this.run(row.id, tx, [])).txHash;
  }

  private async run(id: string, tx: OutgoingTx, abi: Abi): Promise<RelayResult> {
    let gas: bigint;
    try {
      gas = await this.publicClient.estimateGas({ account: this.account, to: tx.to, data: tx.data, value: tx.value });
    } catch (error) {
      const reverted = this.decodeRevert(error, abi);
      await this.opts.store.finish(id, "FAILED", { error: reverted.message });
      this.metrics.transactions.inc({ function: tx.label, outcome: "failed" });
      throw reverted;
    }
    const inflight = await this.broadcast(id, { ...tx, gas: (gas * 12n) / 10n });
    const receipt = await this.tracker.wait(inflight, this.opts.receiptTimeoutMs);
    return this.result(id, receipt);
  }

  /** Takes a nonce, signs at the current fees, records the version, then broadcasts it (all inside the lane). */
  private broadcast(id: string, tx: OutgoingTx & { gas: bigint }): Promise<InFlight> {
    return this.lane.run(async () => {
      for (let tries = 0; ; tries++) {
        const nonce = await this.takeNonce();
        const fees = initialFees(await this.estimateFees(), this.opts.maxFeePerGas);
        const head = await this.publicClient.getBlockNumber();
        const signed = await this.sign(tx, nonce, fees);
        const attempt: Attempt = { hash: signed.hash, ...fees, sentBlock: head, sentAt: new Date() };
        await this.opts.store.attempt(id, nonce, tx.gas, attempt, false);
        const inflight = this.tracker.track({ id, nonce, ...tx, attempts: [attempt] });
        try {
          await this.publicClient.sendRawTransaction({ serializedTransaction: signed.serialized });
        } catch (error) {
          const kind = classifySendError(error);
          if (kind === "accepted" || kind === "unknown") {
            // Already in the node's pool, or the answer was lost: tracked either way (replaced if never mined).
            if (kind === "unknown") this.opts.logger.warn({ id, nonce, err: errorMessage(error) }, "broadcast unclear");
          } else {
            this.tracker.untrack(id);
            await this.opts.store.forgetAttempt(signed.hash);
            this.nextNonce = undefined; // resync from the chain
            if (kind === "nonce-used" && tries === 0) continue; // a stale nonce: once more with a fresh one
            await this.opts.store.finish(id, "FAILED", { error: errorMessage(error) });
            this.metrics.transactions.inc({ function: tx.label, outcome: "failed" });
            throw new RelayError("TX_FAILED", `sending failed: ${errorMessage(error)}`);
          }
        }
        this.opts.logger.info(
          { id, call: tx.label, nonce, hash: signed.hash, maxFeePerGas: fees.maxFeePerGas.toString() },
          "transaction sent",
        );
        return inflight;
      }
    });
  }

  private async sign(tx: OutgoingTx & { gas: bigint }, nonce: number, fees: Fees) {
    const serialized = await this.account.signTransaction({
      chainId: this.opts.deployments.chainId,
      type: "eip1559",
      to: tx.to,
      data: tx.data,
      value: tx.value,
      gas: tx.gas,
      nonce,
      ...fees,
    });
    return { serialized, hash: keccak256(serialized) };
  }

  private async estimateFees(): Promise<Fees> {
    const { maxFeePerGas, maxPriorityFeePerGas } = await this.publicClient.estimateFeesPerGas();
    return { maxFeePerGas, maxPriorityFeePerGas };
  }

  /** Next nonce: the node's pending count, but never one a tracked transaction already holds. */
  private async takeNonce(): Promise<number> {
    if (this.nextNonce === undefined) {
      const pending = await this.publicClient.getTransactionCount({ address: this.address, blockTag: "pending" });
      this.nextNonce = Math.max(pending, this.tracker.highestNonce() + 1);
    }
    return this.nextNonce++;
  }

  /** Resumes a request whose idempotency key was seen before; undefined means it never reached the chain. */
  private async resume(row: TxRow): Promise<RelayResult | undefined> {
    const tracked = this.tracker.get(row.id);
    if (tracked) return this.result(row.id, await this.tracker.wait(tracked, this.opts.receiptTimeoutMs));
    switch (row.status) {
      case "SUCCESS":
        return this.result(row.id, await this.receiptOf(row.tx_hash as Hex));
      case "SENT": {
        // This signer tracks all of its own sent rows, so this one was settled a moment ago, or belongs to another
        // signer sharing the database: then only its receipt is awaited (never replaced with this key).
        const fresh = (await this.opts.store.get(row.id)) ?? row;
        if (fresh.status !== "SENT") return this.resume(fresh);
        return this.result(row.id, await this.receiptOf(fresh.tx_hash as Hex));
      }
      case "PENDING": {
        // Not in this process's hands: if it is this signer's, it crashed before broadcasting (versions are recorded
        // before they are sent, so nothing went out) and sending is safe; another signer's is waited for briefly.
        if (row.signer === this.address) return undefined;
        for (let i = 0; i < 100; i++) {
          await new Promise((r) => setTimeout(r, 100));
          const fresh = await this.opts.store.get(row.id);
          if (fresh && fresh.status !== "PENDING") return this.resume(fresh);
        }
        throw new RelayError("TX_FAILED", "an earlier request with this idempotency key is still pending");
      }
      case "REVERTED":
        throw new RelayError("TX_REVERTED", row.error ?? "reverted", undefined, row.tx_hash as Hex);
      default:
        return undefined; // FAILED before reaching the chain: safe to try again
    }
  }

  private async receiptOf(hash: Hex): Promise<TransactionReceipt> {
    try {
      return await this.publicClient.waitForTransactionReceipt({ hash, timeout: this.opts.receiptTimeoutMs });
    } catch {
      throw new RelayError("RECEIPT_TIMEOUT", `no receipt for ${hash} yet; it is tracked`, undefined, hash);
    }
  }

  private result(id: string, receipt: TransactionReceipt): RelayResult {
    if (receipt.status !== "success") {
      throw new RelayError("TX_REVERTED", "transaction reverted on chain", undefined, receipt.transactionHash);
    }
    return {
      id,
      txHash: receipt.transactionHash,
      blockNumber: receipt.blockNumber.toString(),
      gasUsed: receipt.gasUsed.toString(),
      logs: receipt.logs.map((log) => ({
        address: log.address,
        topics: log.topics as Hex[],
        data: log.data,
        logIndex: log.logIndex,
      })),
    };
  }

  /** The simulation's failure: a revert decoded by error name where any contract's ABI knows it, else TX_FAILED. */
  private decodeRevert(error: unknown, abi: Abi): RelayError {
    if (error instanceof BaseError) {
      const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
      if (revert instanceof ContractFunctionRevertedError && revert.data?.errorName) {
        return new RelayError(
          "TX_REVERTED",
          `${revert.data.errorName}(${(revert.data.args ?? []).join(", ")})`,
          revert.data.errorName,
        );
      }
      const raw = error.walk((e) => typeof (e as { data?: unknown }).data === "string") as { data?: Hex } | null;
      if (raw?.data) {
        try {
          const decoded = decodeErrorResult({ abi: [...abi, ...allErrorsAbi], data: raw.data });
          return new RelayError(
            "TX_REVERTED",
            `${decoded.errorName}(${(decoded.args ?? []).join(", ")})`,
            decoded.errorName,
          );
        } catch {
          /* fall through */
        }
      }
      if (error.walk((e) => e instanceof ExecutionRevertedError))
        return new RelayError("TX_REVERTED", error.shortMessage);
    }
    // Not a revert (the node could not be reached, timed out, refused the request): nothing was sent, and the same
    // request may succeed later, so it is not reported as the call's own failure.
    return new RelayError("TX_FAILED", `could not simulate the call: ${errorMessage(error)}`);
  }
}

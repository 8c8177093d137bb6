// One signer, one nonce lane: simulate, sign, send, and track every transaction to its receipt.
import { agentHubChain, type Deployments } from "@agenthub/common";
import {
  type Abi,
  type Account,
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  decodeErrorResult,
  type Hex,
  http,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { allErrorsAbi, checkAllowed, type RelayTarget } from "./allowlist.ts";
import type { TxRow, TxStore } from "./store.ts";

export interface RelayRequest {
  target: RelayTarget;
  data: Hex;
  /** Same key, same transaction: a retried request never sends a second one. */
  idempotencyKey?: string;
}

export interface RelayLog {
  address: Address;
  topics: Hex[];
  data: Hex;
  logIndex: number;
}

export interface RelayResult {
  id: string;
  txHash: Hex;
  blockNumber: string;
  gasUsed: string;
  logs: RelayLog[];
}

export type RelayErrorCode = "NOT_ALLOWED" | "TX_REVERTED" | "TX_FAILED" | "RECEIPT_TIMEOUT";

export class RelayError extends Error {
  constructor(
    readonly code: RelayErrorCode,
    message: string,
    readonly errorName?: string,
    readonly txHash?: Hex,
  ) {
    super(message);
  }
}

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

export class Relayer {
  readonly account: Account;
  readonly publicClient: PublicClient;
  private readonly wallet: WalletClient;
  private readonly lane = new Lane();
  private nextNonce: number | undefined;

  constructor(
    private readonly opts: {
      rpcUrl: string;
      privateKey: Hex;
      deployments: Deployments;
      store: TxStore;
      receiptTimeoutMs: number;
    },
  ) {
    const chain = agentHubChain(opts.rpcUrl);
    this.account = privateKeyToAccount(opts.privateKey);
    this.publicClient = createPublicClient({ chain, transport: http(opts.rpcUrl), pollingInterval: 50 });
    this.wallet = createWalletClient({ account: this.account, chain, transport: http(opts.rpcUrl) });
  }

  get address(): Address {
    return this.account.address;
  }

  addressOf(target: RelayTarget): Address {
    return target === "USDC" ? this.opts.deployments.usdc.address : this.opts.deployments.contracts[target].address;
  }

  async submit(request: RelayRequest): Promise<RelayResult> {
    const check = checkAllowed(request.target, request.data, {
      runEscrow: this.opts.deployments.contracts.RunEscrow.address,
      relayer: this.account.address,
    });
    if (!check.ok) throw new RelayError("NOT_ALLOWED", check.reason);
    const { functionName, abi } = check;
    const { row, created } = await this.opts.store.begin(
      request.idempotencyKey,
      request.target,
      functionName,
      request.data,
    );
    if (!created) {
      const resolved = await this.resume(row);
      if (resolved) return resolved;
      await this.opts.store.retry(row.id);
    }
    return this.send(row.id, request.target, abi, request.data);
  }

  /** Sends plain ETH (local faucet only). */
  sendValue(to: Address, value: bigint): Promise<Hex> {
    return this.sendUntracked({ to, value });
  }

  /** Sends a call outside the allowlist (local faucet only: TestUSDC mint). */
  sendRaw(to: Address, data: Hex): Promise<Hex> {
    return this.sendUntracked({ to, data });
  }

  private async sendUntracked(tx: { to: Address; value?: bigint; data?: Hex }): Promise<Hex> {
    const hash = await this.lane.run(async () => {
      const nonce = await this.takeNonce();
      try {
        return await this.wallet.sendTransaction({ account: this.account, chain: null, ...tx, nonce });
      } catch (error) {
        this.nextNonce = undefined;
        throw error;
      }
    });
    await this.publicClient.waitForTransactionReceipt({ hash, timeout: this.opts.receiptTimeoutMs });
    return hash;
  }

  /** Re-checks transactions that were sent but whose receipt was never recorded (e.g. after a crash). */
  async reconcile(): Promise<number> {
    const rows = await this.opts.store.unfinished();
    for (const row of rows) await this.resume(row).catch(() => {});
    return rows.length;
  }

  private async resume(row: TxRow): Promise<RelayResult | undefined> {
    if (row.status === "SUCCESS" || row.status === "SENT") {
      const receipt = await this.waitReceipt(row.tx_hash as Hex);
      return this.settle(row.id, receipt);
    }
    if (row.status === "PENDING") {
      // Another request with this key is in flight (or crashed before sending); wait briefly for it.
      for (let i = 0; i < 100; i++) {
        await new Promise((r) => setTimeout(r, 100));
        const fresh = await this.opts.store.get(row.id);
        if (fresh && fresh.status !== "PENDING") return this.resume(fresh);
      }
      throw new RelayError("TX_FAILED", "an earlier request with this idempotency key is still pending");
    }
    if (row.status === "REVERTED")
      throw new RelayError("TX_REVERTED", row.error ?? "reverted", undefined, row.tx_hash as Hex);
    return undefined; // FAILED before reaching the chain: safe to try again
  }

  private async send(id: string, target: RelayTarget, abi: Abi, data: Hex): Promise<RelayResult> {
    const to = this.addressOf(target);
    let gas: bigint;
    try {
      gas = await this.publicClient.estimateGas({ account: this.account, to, data });
    } catch (error) {
      const reverted = this.decodeRevert(error, abi);
      await this.opts.store.finish(id, "FAILED", { error: reverted.message });
      throw reverted;
    }
    let hash: Hex;
    try {
      hash = await this.lane.run(async () => {
        const nonce = await this.takeNonce();
        try {
          const sent = await this.wallet.sendTransaction({
            account: this.account,
            chain: null,
            to,
            data,
            nonce,
            gas: (gas * 12n) / 10n,
          });
          await this.opts.store.sent(id, sent, nonce);
          return sent;
        } catch (error) {
          this.nextNonce = undefined; // resync from the chain on the next send
          throw error;
        }
      });
    } catch (error) {
      const message = error instanceof BaseError ? error.shortMessage : String(error);
      await this.opts.store.finish(id, "FAILED", { error: message });
      throw new RelayError("TX_FAILED", `sending failed: ${message}`);
    }
    const receipt = await this.waitReceipt(hash);
    return this.settle(id, receipt);
  }

  private async waitReceipt(hash: Hex): Promise<TransactionReceipt> {
    try {
      return await this.publicClient.waitForTransactionReceipt({ hash, timeout: this.opts.receiptTimeoutMs });
    } catch {
      throw new RelayError(
        "RECEIPT_TIMEOUT",
        `no receipt for ${hash} yet; it is tracked and reconciled`,
        undefined,
        hash,
      );
    }
  }

  private async settle(id: string, receipt: TransactionReceipt): Promise<RelayResult> {
    if (receipt.status !== "success") {
      await this.opts.store.finish(id, "REVERTED", { error: "reverted on chain", blockNumber: receipt.blockNumber });
      throw new RelayError("TX_REVERTED", "transaction reverted on chain", undefined, receipt.transactionHash);
    }
    await this.opts.store.finish(id, "SUCCESS", { blockNumber: receipt.blockNumber, gasUsed: receipt.gasUsed });
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

  private async takeNonce(): Promise<number> {
    if (this.nextNonce === undefined) {
      this.nextNonce = await this.publicClient.getTransactionCount({
        address: this.account.address,
        blockTag: "pending",
      });
    }
    return this.nextNonce++;
  }

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
      return new RelayError("TX_REVERTED", error.shortMessage);
    }
    return new RelayError("TX_REVERTED", String(error));
  }
}

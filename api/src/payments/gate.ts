// The payment gate, framework free: `open` checks a request's payment and claims it; `close` settles it (x402)
// when the paid handler succeeded or gives it back when it failed. The Hono adapter is middleware.ts.
import type { Deployments } from "@agenthub/common";
import { TestUSDCAbi } from "@agenthub/common/generated/abis";
import type { RelayerClient } from "@agenthub/relayer/client";
import { RelayerCallError } from "@agenthub/relayer/client";
import { encodePaymentRequiredHeader, encodePaymentResponseHeader } from "@x402/core/http";
import type pg from "pg";
import type { Logger } from "pino";
import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  type Hex,
  type PublicClient,
  parseEventLogs,
} from "viem";
import { PAID_PATHS, priceOf } from "../domain/prices.ts";
import { ChainClock } from "../lib/chain-time.ts";
import { type PaymentRow, PaymentStore } from "../stores/payments.ts";
import { type ParsedSignature, toLowS } from "./eip712.ts";
import { PaymentError } from "./errors.ts";
import { OnchainVerificationBudget } from "./onchain-budget.ts";
import type { Recoverer } from "./recover.ts";
import { checkSpecRules, parseSpecPayment, specMessage, specPaymentStruct } from "./spec-scheme.ts";
import type { PaymentInfo } from "./types.ts";
import {
  authorizationStruct,
  checkExactRules,
  checkWindow,
  decodeX402Header,
  type ExactPayment,
  type Offer,
  parseExactPayment,
  paymentRequired,
  requirementsV1,
  settleResponse,
} from "./x402.ts";

export interface GateDeps {
  pool: pg.Pool;
  chain: PublicClient;
  relayer: RelayerClient;
  deployments: Deployments;
  logger: Logger;
  recipient: Address;
  publicUrl: string;
  recoverer: Recoverer;
  /**
   * Called when a payment whose handler may have answered will never be settled (its settlement reverted or its
   * authorization expired unsent, or its request died before settling): the paid route undoes its side effects.
   */
  onUnpaid?: (unpaid: UnpaidRequest) => Promise<void>;
}

export interface UnpaidRequest {
  endpoint: string;
  payer: Address;
  nonce: string;
}

/** A payment accepted for one request. */
export interface OpenPayment {
  payment: PaymentInfo;
  /**
   * After the handler: `ok` settles (x402) and returns the headers to add, or throws a PaymentError when the
   * settlement fails (the handler's response must then be withheld); `!ok` gives the payment back.
   */
  close(ok: boolean): Promise<Record<string, string>>;
}

/** Header lookup (case-insensitive), e.g. `(name) => c.req.header(name)`. */
export type HeaderGetter = (name: string) => string | undefined;

const usdcAbi = TestUSDCAbi;

/** ERC-1271 / ERC-6492 signatures verified on chain per payer and minute (per API process). */
export const ONCHAIN_VERIFICATIONS_PER_PAYER_MINUTE = 5;

export class PaymentGate {
  readonly store: PaymentStore;
  private readonly clock: ChainClock;
  private readonly onchainChecks = new OnchainVerificationBudget(ONCHAIN_VERIFICATIONS_PER_PAYER_MINUTE, 60_000);

  constructor(private readonly deps: GateDeps) {
    this.store = new PaymentStore(deps.pool);
    this.clock = new ChainClock(deps.chain);
  }

  /** Which signature recovery implementation this gate uses (see recover.ts). */
  get recoverer(): string {
    return this.deps.recoverer.name;
  }

  offer(path: string): Offer {
    const price = priceOf(path);
    if (!price) throw new Error(`no price for ${path}`);
    const { usdc, chainId } = this.deps.deployments;
    return {
      asset: { address: usdc.address, name: usdc.name, version: usdc.version, chainId },
      payTo: this.deps.recipient,
      price,
      resourceUrl: new URL(path, this.deps.publicUrl).toString(),
    };
  }

  /** Body fields and headers of a payment error: x402 v1 `accepts` in the body, v2 PAYMENT-REQUIRED header. */
  challenge(path: string, error: PaymentError) {
    const offer = this.offer(path);
    const reason = error.x402Reason ?? error.message;
    return {
      body: { x402Version: 1 as const, accepts: [requirementsV1(offer)] },
      headers: { "PAYMENT-REQUIRED": encodePaymentRequiredHeader(paymentRequired(offer, reason)) },
    };
  }

  /**
   * Checks the request's payment for `pricedPath` (the route's price entry) called at `calledPath`.
   * Throws PaymentError with the spec's status and code.
   */
  async open(pricedPath: string, calledPath: string, header: HeaderGetter): Promise<OpenPayment> {
    const v2 = header("payment-signature");
    const xPayment = header("x-payment");
    if (v2) return this.openExact(decodeX402Header(v2), pricedPath, calledPath);
    if (!xPayment) throw new PaymentError("PAYMENT_REQUIRED", `${calledPath} needs a payment (x-payment header)`);
    // x-payment is both the spec's JSON header and x402 v1's X-PAYMENT (base64 JSON): the first byte tells them apart.
    if (xPayment.trimStart().startsWith("{")) return this.openSpec(xPayment, pricedPath, calledPath);
    return this.openExact(decodeX402Header(xPayment), pricedPath, calledPath);
  }

  private async openSpec(header: string, pricedPath: string, calledPath: string): Promise<OpenPayment> {
    const price = priceOf(pricedPath);
    if (!price) throw new Error(`no price for ${pricedPath}`);
    const p = parseSpecPayment(header);
    const digest = specPaymentStruct(this.deps.deployments.chainId).digest(specMessage(p));
    const signer = await this.recover(digest, p.parsed);
    if (signer !== p.payer)
      throw new PaymentError("INVALID_PAYMENT", "the payment signature does not recover the payer");
    checkSpecRules(p, {
      chainId: this.deps.deployments.chainId,
      recipient: this.deps.recipient,
      price: price.spec,
      endpoint: calledPath,
    });
    const recorded = await this.store.recordSpec({
      payer: p.payer,
      nonce: p.nonce,
      recipient: p.recipient,
      amount: p.amount,
      endpoint: p.endpoint,
    });
    if (!recorded) throw new PaymentError("NONCE_REUSED", `nonce ${p.nonce} was already used by ${p.payer}`);
    return {
      payment: { payer: p.payer, scheme: "agenthub", amount: p.amount.toString(), nonce: p.nonce },
      close: async (ok) => {
        if (!ok) await this.store.releaseSpec(p.payer, p.nonce);
        return {};
      },
    };
  }

  private async recover(digest: Uint8Array, sig: ParsedSignature): Promise<Address | undefined> {
    try {
      return await this.deps.recoverer.recover(digest, sig);
    } catch {
      return undefined;
    }
  }

  private async openExact(raw: Record<string, unknown>, pricedPath: string, calledPath: string): Promise<OpenPayment> {
    const offer = this.offer(pricedPath);
    const p = parseExactPayment(raw, offer);
    const a = p.authorization;
    // Cheap checks first (recipient, amount, endpoint; the format was parsed): a payment that cannot be accepted
    // never costs a signature recovery, let alone an on-chain call.
    checkExactRules(p, offer, calledPath);
    const struct = authorizationStruct(offer.asset);
    const digest = struct.digest({ ...a });
    let valid: boolean;
    if (p.parsed) {
      valid = (await this.recover(digest, p.parsed)) === a.from;
    } else {
      // Smart-account (ERC-1271 / ERC-6492) signatures are checked by the chain, a bounded number per payer.
      if (!this.onchainChecks.take(a.from)) {
        throw new PaymentError(
          "RATE_LIMITED",
          `at most ${ONCHAIN_VERIFICATIONS_PER_PAYER_MINUTE} smart-account payment signatures of ${a.from} are verified per minute`,
        );
      }
      valid = await this.deps.chain
        .verifyTypedData({
          address: a.from,
          domain: struct.domain,
          types: struct.types as never,
          primaryType: struct.type.name,
          message: { ...a },
          signature: p.signature,
        })
        .catch(() => false);
    }
    if (!valid)
      throw new PaymentError(
        "INVALID_PAYMENT",
        "the authorization signature does not recover authorization.from",
        "invalid_exact_evm_signature",
      );

    const claim = await this.store.claimX402({
      payer: a.from,
      nonce: a.nonce,
      recipient: a.to,
      amount: a.value,
      endpoint: calledPath,
      asset: offer.asset.address,
      x402Version: p.x402Version,
      payload: raw.payload,
    });
    if (claim.state === "used")
      throw new PaymentError(
        "NONCE_REUSED",
        `authorization nonce ${a.nonce} was already used by ${a.from}`,
        "invalid_exact_evm_nonce_already_used",
      );
    // A resumed payment was settled (or sent) by an earlier request that could not deliver its response.
    const resumed = claim.state === "resume" ? claim.row : undefined;
    if (!resumed || resumed.status === "PENDING") {
      try {
        checkWindow(a, await this.clock.now());
        await this.simulate(offer, p);
      } catch (error) {
        // Nothing was sent for this claim (new, or taken over from an abandoned request): give it back.
        await this.store.releaseX402(a.from, a.nonce);
        throw error;
      }
    }
    return {
      payment: { payer: a.from, scheme: "x402-exact", amount: a.value.toString(), nonce: a.nonce },
      close: async (ok): Promise<Record<string, string>> => {
        if (!ok) {
          await this.store.releaseX402(a.from, a.nonce);
          return {};
        }
        const tx = await this.settle(offer, p, resumed);
        const header = encodePaymentResponseHeader(settleResponse(tx, a.from, p.x402Version));
        return p.x402Version === 1 ? { "X-PAYMENT-RESPONSE": header } : { "PAYMENT-RESPONSE": header };
      },
    };
  }

  private settleArgs(p: ExactPayment) {
    const a = p.authorization;
    // Contracts using OpenZeppelin's ECDSA (and Circle's USDC) refuse high-s signatures: submit the canonical twin.
    const signature = p.parsed ? toLowS(p.parsed) : p.signature;
    return [a.from, a.to, a.value, a.validAfter, a.validBefore, a.nonce, signature] as const;
  }

  /** Balance, unused nonce, time and signature as the token itself sees them: one eth_call. */
  private async simulate(offer: Offer, p: ExactPayment): Promise<void> {
    try {
      await this.deps.chain.simulateContract({
        address: offer.asset.address,
        abi: usdcAbi,
        functionName: "transferWithAuthorization",
        args: this.settleArgs(p),
      });
    } catch (error) {
      throw this.simulationError(error, p);
    }
  }

  private simulationError(error: unknown, p: ExactPayment): PaymentError {
    const a = p.authorization;
    let name = "";
    let message = String(error);
    if (error instanceof BaseError) {
      const revert = error.walk((e) => e instanceof ContractFunctionRevertedError);
      if (revert instanceof ContractFunctionRevertedError) {
        name = revert.data?.errorName ?? "";
        message = revert.reason ?? revert.shortMessage;
      } else message = error.shortMessage;
    }
    const text = `${name} ${message}`;
    if (/UsedAuthorization|authorization is used/i.test(text))
      return new PaymentError(
        "NONCE_REUSED",
        `authorization nonce ${a.nonce} was already used by ${a.from}`,
        "invalid_exact_evm_nonce_already_used",
      );
    if (/InsufficientBalance|exceeds balance/i.test(text))
      return new PaymentError(
        "INVALID_PAYMENT",
        `${a.from} holds less than ${a.value} USDC base units`,
        "invalid_exact_evm_insufficient_balance",
      );
    if (/AuthorizationTime|not yet valid|expired/i.test(text))
      return new PaymentError(
        "INVALID_PAYMENT",
        "authorization is outside its validity window on chain",
        "invalid_exact_evm_payload_authorization_valid_before",
      );
    if (/InvalidSignature|invalid signature/i.test(text))
      return new PaymentError(
        "INVALID_PAYMENT",
        "the token rejects the authorization signature",
        "invalid_exact_evm_signature",
      );
    if (!name && !/revert/i.test(message))
      return new PaymentError("RELAYER_UNAVAILABLE", `cannot reach the chain to verify: ${message}`);
    return new PaymentError(
      "INVALID_PAYMENT",
      `transfer simulation failed: ${message}`,
      "invalid_exact_evm_transaction_simulation_failed",
    );
  }

  /** Marks the payment FAILED and lets its route undo what it did, once (only the transition calls back). */
  private async fail(payer: Address, nonce: string, txHash: Hex | undefined, error: string): Promise<void> {
    const endpoint = await this.store.failed(payer, nonce, txHash, error);
    if (endpoint) await this.unpaid({ endpoint, payer, nonce });
  }

  private async unpaid(unpaid: UnpaidRequest): Promise<void> {
    await this.deps
      .onUnpaid?.(unpaid)
      .catch((err) =>
        this.deps.logger.error({ ...unpaid, err: (err as Error).message }, "could not undo an unpaid request"),
      );
  }

  idempotencyKey(asset: Address, payer: Address, nonce: Hex): string {
    return `x402:${this.deps.deployments.chainId}:${asset.toLowerCase()}:${payer.toLowerCase()}:${nonce}`;
  }

  /** Settles on chain through the relayer (or reuses an earlier settlement). Returns the transaction hash. */
  private async settle(offer: Offer, p: ExactPayment, resumed: PaymentRow | undefined): Promise<Hex> {
    const a = p.authorization;
    if (resumed?.status === "COMPLETED" && resumed.tx_hash) {
      await this.store.settled(a.from, a.nonce, resumed.tx_hash as Hex, true);
      return resumed.tx_hash as Hex;
    }
    try {
      const result = await this.deps.relayer.call(
        "USDC",
        usdcAbi,
        "transferWithAuthorization",
        this.settleArgs(p),
        this.idempotencyKey(offer.asset.address, a.from, a.nonce),
      );
      const used = parseEventLogs({
        abi: usdcAbi,
        eventName: "AuthorizationUsed",
        logs: result.logs.map((l) => ({ ...l, topics: l.topics as [Hex, ...Hex[]] })) as never,
      });
      if (!used.some((l) => l.args.authorizer === a.from && l.args.nonce.toLowerCase() === a.nonce))
        this.deps.logger.warn({ tx: result.txHash }, "x402 settlement receipt lacks AuthorizationUsed");
      await this.store.settled(a.from, a.nonce, result.txHash, true);
      return result.txHash;
    } catch (error) {
      if (!(error instanceof RelayerCallError)) throw error;
      if (error.code === "RECEIPT_TIMEOUT") {
        await this.store.settling(a.from, a.nonce, error.txHash, error.message);
        throw new PaymentError(
          "PAYMENT_PENDING",
          `settlement ${error.txHash ?? ""} is not mined yet; send the same payment again to receive the response`,
          "settlement_pending",
        );
      }
      if (error.code === "TX_REVERTED") {
        // Someone else may have executed the authorization (the payee got paid all the same).
        const onChain = await this.findUse(offer, a.from, a.nonce);
        if (onChain) {
          await this.store.settled(a.from, a.nonce, onChain, true);
          return onChain;
        }
        await this.fail(a.from, a.nonce, error.txHash, error.message);
        throw new PaymentError(
          "PAYMENT_SETTLEMENT_FAILED",
          `settlement reverted: ${error.message}`,
          "invalid_exact_evm_transaction_failed",
        );
      }
      await this.store.settling(a.from, a.nonce, error.txHash, error.message);
      throw new PaymentError("RELAYER_UNAVAILABLE", "settlement could not be sent; send the same payment again");
    }
  }

  /**
   * Settles the books of x402 payments whose outcome is unknown: a settlement that timed out (or a request that
   * died mid-way) is COMPLETED with its txHash once the chain shows the authorization used, FAILED when it reverted
   * or can no longer be mined, and a claim that never reached the chain is released. Never sends a transfer: only
   * a client presenting the payment again (or the relayer's own tracking) can, with the same idempotency key.
   */
  async reconcile(): Promise<number> {
    const rows = await this.store.unsettled(2);
    const now = await this.clock.now();
    for (const row of rows) {
      const payer = row.payer as Address;
      const nonce = row.nonce as Hex;
      try {
        const offer = this.offer(priceOf(row.endpoint) ? row.endpoint : (PAID_PATHS[0] as string));
        const used = await this.findUse(offer, payer, nonce);
        if (used) {
          await this.store.settled(payer, nonce, used, row.delivered);
          this.deps.logger.info({ payer, nonce, tx: used }, "x402 settlement reconciled");
          continue;
        }
        const validBefore = BigInt(
          ((row.payload as { authorization?: { validBefore?: string } } | null)?.authorization?.validBefore ?? "0") ||
            "0",
        );
        if (row.status === "PENDING") {
          // Abandoned before settlement (its request died): whatever its handler did was never paid for.
          await this.store.releaseX402(payer, nonce);
          await this.unpaid({ endpoint: row.endpoint, payer, nonce });
          continue;
        }
        if (row.tx_hash) {
          const receipt = await this.deps.chain
            .getTransactionReceipt({ hash: row.tx_hash as Hex })
            .catch(() => undefined);
          if (receipt?.status === "reverted") {
            await this.fail(payer, nonce, row.tx_hash as Hex, "settlement reverted on chain");
            continue;
          }
        }
        if (validBefore < now) await this.fail(payer, nonce, undefined, "authorization expired unsettled");
      } catch (error) {
        this.deps.logger.warn({ payer, nonce, err: (error as Error).message }, "x402 reconcile failed");
      }
    }
    return rows.length;
  }

  /** Runs reconcile() every `intervalMs` (unref'd timer); returns the stop function. */
  startReconciler(intervalMs: number): () => void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      this.reconcile()
        .catch((error) => this.deps.logger.warn({ err: (error as Error).message }, "x402 reconcile pass failed"))
        .finally(() => {
          running = false;
        });
    }, intervalMs);
    timer.unref();
    return () => clearInterval(timer);
  }

  /** The transaction that used (payer, nonce) on chain, if any. */
  async findUse(offer: Offer, payer: Address, nonce: Hex): Promise<Hex | undefined> {
    const used = await this.deps.chain.readContract({
      address: offer.asset.address,
      abi: usdcAbi,
      functionName: "authorizationState",
      args: [payer, nonce],
    });
    if (!used) return undefined;
    const logs = await this.deps.chain.getContractEvents({
      address: offer.asset.address,
      abi: usdcAbi,
      eventName: "AuthorizationUsed",
      args: { authorizer: payer, nonce },
      fromBlock: BigInt(this.deps.deployments.startBlock),
    });
    return logs[0]?.transactionHash ?? undefined;
  }
}

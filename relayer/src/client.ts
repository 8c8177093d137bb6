// The API's view of the relayer: typed calldata in, receipt facts out.
import type { Abi, Address, ContractFunctionArgs, ContractFunctionName, Hex } from "viem";
import { encodeFunctionData } from "viem";
import type { RelayErrorCode, RelayResult, RelayScope, RelayTarget } from "./protocol.ts";

export class RelayerCallError extends Error {
  constructor(
    readonly code: RelayErrorCode | "UNAVAILABLE" | "TIMEOUT" | string,
    message: string,
    readonly status: number,
    readonly errorName?: string,
    readonly txHash?: Hex,
  ) {
    super(message);
  }
}

export interface RelayerStatus {
  ready: boolean;
  checks: Record<string, { ok: boolean; error?: string }>;
  address: Address;
  pending: number;
  oldestPendingSeconds: number;
  balanceWei: string | null;
  balanceLow: boolean | null;
  minBalanceWei: string;
}

export class RelayerClient {
  private readonly timeoutMs: number;
  private readonly statusTimeoutMs: number;

  /**
   * `timeoutMs` bounds a transaction call (it waits for the receipt: keep it above the relayer's RECEIPT_TIMEOUT_MS
   * so the relayer's own answer, which carries the txHash, arrives first); `statusTimeoutMs` bounds status reads.
   */
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
    opts: { timeoutMs?: number; statusTimeoutMs?: number } = {},
  ) {
    this.timeoutMs = opts.timeoutMs ?? 130_000;
    this.statusTimeoutMs = opts.statusTimeoutMs ?? 3_000;
  }

  /**
   * Relays one call. `scope` names what the API request acts for (the agent, on-chain run, subscription or paying
   * account): the relayer refuses a scoped function whose calldata acts on anything else.
   */
  async call<const abi extends Abi, name extends ContractFunctionName<abi, "nonpayable" | "payable">>(
    target: RelayTarget,
    abi: abi,
    functionName: name,
    args: ContractFunctionArgs<abi, "nonpayable" | "payable", name>,
    idempotencyKey?: string,
    scope?: RelayScope,
  ): Promise<RelayResult> {
    const data = encodeFunctionData({ abi, functionName, args } as never) as Hex;
    const named = scope && {
      agentId: scope.agentId?.toString(),
      runId: scope.runId?.toString(),
      subscriptionId: scope.subscriptionId?.toString(),
    };
    return this.post<RelayResult>("/v1/transactions", { target, data, idempotencyKey, scope: named });
  }

  async faucet(address: Address, usdc: bigint, eth: bigint): Promise<{ usdcTx?: string; ethTx?: string }> {
    return this.post("/v1/faucet", { address, usdc: usdc.toString(), eth: eth.toString() });
  }

  /** The relayer's readiness, address, in-flight transactions and signer balance (GET /ready, 200 or 503). */
  async status(): Promise<RelayerStatus> {
    const { res, json } = await this.request("GET", "/ready", undefined, this.statusTimeoutMs);
    if (res.status !== 200 && res.status !== 503) throw this.failure(res, json);
    return json as unknown as RelayerStatus;
  }

  /** The relayer's signing address (the platform's subscription account). */
  async address(): Promise<Address> {
    const { res, json } = await this.request("GET", "/health", undefined, this.statusTimeoutMs);
    if (!res.ok) throw this.failure(res, json);
    return (json as { address: Address }).address;
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    const { res, json } = await this.request("POST", path, body, this.timeoutMs);
    if (!res.ok) throw this.failure(res, json);
    return json as T;
  }

  /** Every call has a deadline: a relayer that hangs is a 504 (TIMEOUT), one that cannot be reached a 503. */
  private async request(method: string, path: string, body: unknown, timeoutMs: number) {
    let res: Response;
    let json: { error?: { code: string; message: string; errorName?: string; txHash?: Hex } };
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${this.token}` },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(timeoutMs),
      });
      json = (await res.json().catch((error: Error) => {
        if (error.name === "TimeoutError") throw error;
        return {};
      })) as typeof json;
    } catch (error) {
      if ((error as Error).name === "TimeoutError") {
        throw new RelayerCallError("TIMEOUT", `relayer did not answer ${method} ${path} within ${timeoutMs} ms`, 504);
      }
      throw new RelayerCallError("UNAVAILABLE", `relayer unreachable: ${(error as Error).message}`, 503);
    }
    return { res, json };
  }

  private failure(
    res: Response,
    json: { error?: { code: string; message: string; errorName?: string; txHash?: Hex } },
  ) {
    const e = json.error ?? { code: "UNAVAILABLE", message: `relayer answered ${res.status}` };
    return new RelayerCallError(e.code, e.message, res.status, e.errorName, e.txHash);
  }
}

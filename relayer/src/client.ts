// The API's view of the relayer: typed calldata in, receipt facts out.
import type { Abi, Address, ContractFunctionArgs, ContractFunctionName, Hex } from "viem";
import { encodeFunctionData } from "viem";
import type { RelayTarget } from "./allowlist.ts";
import type { RelayErrorCode, RelayResult } from "./relayer.ts";

export class RelayerCallError extends Error {
  constructor(
    readonly code: RelayErrorCode | "UNAVAILABLE" | string,
    message: string,
    readonly status: number,
    readonly errorName?: string,
    readonly txHash?: Hex,
  ) {
    super(message);
  }
}

export class RelayerClient {
  constructor(
    private readonly baseUrl: string,
    private readonly token: string,
  ) {}

  async call<const abi extends Abi, name extends ContractFunctionName<abi, "nonpayable" | "payable">>(
    target: RelayTarget,
    abi: abi,
    functionName: name,
    args: ContractFunctionArgs<abi, "nonpayable" | "payable", name>,
    idempotencyKey?: string,
  ): Promise<RelayResult> {
    const data = encodeFunctionData({ abi, functionName, args } as never) as Hex;
    return this.post<RelayResult>("/v1/transactions", { target, data, idempotencyKey });
  }

  async faucet(address: Address, usdc: bigint, eth: bigint): Promise<{ usdcTx?: string; ethTx?: string }> {
    return this.post("/v1/faucet", { address, usdc: usdc.toString(), eth: eth.toString() });
  }

  private async post<T>(path: string, body: unknown): Promise<T> {
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${this.token}` },
        body: JSON.stringify(body),
      });
    } catch (error) {
      throw new RelayerCallError("UNAVAILABLE", `relayer unreachable: ${(error as Error).message}`, 503);
    }
    const json = (await res.json().catch(() => ({}))) as {
      error?: { code: string; message: string; errorName?: string; txHash?: Hex };
    };
    if (!res.ok) {
      const e = json.error ?? { code: "UNAVAILABLE", message: `relayer answered ${res.status}` };
      throw new RelayerCallError(e.code, e.message, res.status, e.errorName, e.txHash);
    }
    return json as T;
  }
}

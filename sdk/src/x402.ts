// Standard x402 for AgentHub's paid routes: the `exact` EVM scheme (EIP-3009 transferWithAuthorization on USDC),
// paid through @x402/fetch. The scheme client below is the reference one (@x402/evm's ExactEvmScheme: same
// authorization fields, same typed data) with one change: its clock is injectable. The server checks the
// authorization window against chain time, which on a local chain can run days ahead of the wall clock.
import { authorizationTypes } from "@x402/evm";
import { type SchemeNetworkClient, wrapFetchWithPaymentFromConfig } from "@x402/fetch";
import { type Address, getAddress, type Hex, toHex } from "viem";
import type { TypedDataSigner } from "./signer.ts";

type Requirements = Parameters<SchemeNetworkClient["createPaymentPayload"]>[1];

/** Seconds since the epoch on the clock the payee checks (chain time for AgentHub). */
export type Clock = () => Promise<number> | number;

export const wallClock: Clock = () => Math.floor(Date.now() / 1000);

export class ExactEip3009Scheme implements SchemeNetworkClient {
  readonly scheme = "exact";

  constructor(
    private readonly signer: TypedDataSigner,
    private readonly clock: Clock = wallClock,
  ) {}

  async createPaymentPayload(x402Version: number, requirements: Requirements) {
    const { name, version } = (requirements.extra ?? {}) as { name?: string; version?: string };
    if (!name || !version) throw new Error(`payment requirements for ${requirements.asset} lack the EIP-712 domain`);
    const chainId = Number(String(requirements.network).split(":")[1]);
    if (!Number.isSafeInteger(chainId)) throw new Error(`unsupported network ${requirements.network}`);
    const now = Math.floor(await this.clock());
    const authorization = {
      from: this.signer.address,
      to: getAddress(requirements.payTo),
      value: requirements.amount,
      validAfter: "0",
      validBefore: String(now + requirements.maxTimeoutSeconds),
      nonce: toHex(globalThis.crypto.getRandomValues(new Uint8Array(32))),
    };
    const signature = await this.signer.signTypedData({
      domain: { name, version, chainId, verifyingContract: getAddress(requirements.asset) },
      types: authorizationTypes,
      primaryType: "TransferWithAuthorization",
      message: {
        from: getAddress(authorization.from),
        to: authorization.to,
        value: BigInt(authorization.value),
        validAfter: BigInt(authorization.validAfter),
        validBefore: BigInt(authorization.validBefore),
        nonce: authorization.nonce as Hex,
      },
    });
    return { x402Version, payload: { authorization, signature } };
  }
}

export interface X402FetchOptions {
  signer: TypedDataSigner;
  /** CAIP-2 network, e.g. "eip155:84532". */
  network: `${string}:${string}`;
  /** The USDC the deployment uses (GET /api/config -> usdc.address); only this asset is paid. */
  asset: Address;
  /** Most this client pays for one request, in USDC base units. */
  maxAmountPerPayment: bigint | string;
  clock?: Clock;
  fetch?: typeof globalThis.fetch;
}

/** A fetch that answers a 402 by paying with x402 (v2 PAYMENT-SIGNATURE) and repeating the request once. */
export function x402Fetch(opts: X402FetchOptions): typeof globalThis.fetch {
  const base = opts.fetch ?? globalThis.fetch.bind(globalThis);
  return wrapFetchWithPaymentFromConfig(base, {
    schemes: [{ network: opts.network, client: new ExactEip3009Scheme(opts.signer, opts.clock) }],
    spendControls: {
      allowedAssets: [
        { network: opts.network, asset: opts.asset, maxAmountPerPayment: String(opts.maxAmountPerPayment) },
      ],
    },
  }) as typeof globalThis.fetch;
}

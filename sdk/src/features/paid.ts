// Paid routes (search, attestations): pay with standard x402 (USDC moves on chain, EIP-3009 through @x402/fetch)
// or with the spec's `x-payment` header (an EIP-712 Payment; nothing moves on chain). Prices come from the
// deployment (GET /api/config -> prices), so the client never pays more than the server announces.
import { decodePaymentResponseHeader } from "@x402/fetch";
import type { Address, Hex } from "viem";
import type { Core } from "../core.ts";
import { AgentHubError } from "../errors.ts";
import { signPayment } from "../protocol/index.ts";
import { type SignerLike, toSigner } from "../signer.ts";
import { x402Fetch } from "../x402.ts";

export type PaidPath = "/api/intelligence/search" | "/api/attestations/create";

export interface PayWith {
  signer: SignerLike;
  /** "x402" (default): USDC settled on chain. "x-payment": the spec's signed Payment, nothing on chain. */
  scheme?: "x402" | "x-payment";
}

export interface PaymentReceipt {
  scheme: "x402" | "x-payment";
  payer: Address;
  /** x402: USDC base units; x-payment: 18-decimal units. */
  amount: string;
  /** The settlement transaction (x402 only). */
  txHash?: Hex;
}

/** Request options (headers or fetch) that pay for one call of `path`, and how to read the receipt after. */
export async function paymentFor(core: Core, path: PaidPath, pay: PayWith) {
  const config = await core.config();
  const price = config.prices[path];
  if (!price) throw AgentHubError.client("NOT_A_PAID_ROUTE", `the deployment announces no price for ${path}`);
  const signer = toSigner(pay.signer);
  const scheme = pay.scheme ?? "x402";
  if (scheme === "x-payment") {
    core.progress("sign", `signing an x-payment of ${price.spec} for ${path}`);
    const header = await signPayment(signer, {
      recipient: config.platformRecipient as Address,
      endpoint: path,
      amount: price.spec,
      chainId: config.chainId,
    });
    const receipt = (): PaymentReceipt => ({ scheme, payer: signer.address, amount: price.spec });
    return { init: { headers: { "x-payment": header } }, receipt };
  }
  const paidFetch = x402Fetch({
    signer,
    network: `eip155:${config.chainId}`,
    asset: config.usdc.address as Address,
    maxAmountPerPayment: price.usdc,
    clock: async () => Number(await core.chainTime()),
    fetch: core.options.fetch,
  });
  const receipt = (response: Response): PaymentReceipt => {
    const header = response.headers.get("payment-response") ?? response.headers.get("x-payment-response");
    const settled = header ? decodePaymentResponseHeader(header) : undefined;
    return { scheme, payer: signer.address, amount: price.usdc, txHash: settled?.transaction as Hex | undefined };
  };
  core.progress("api", `paying ${price.usdc} USDC base units with x402 for ${path}`);
  return { init: { fetch: (request: Request) => paidFetch(request) }, receipt };
}

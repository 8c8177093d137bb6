// OpenAPI pieces every paid route shares: the payment headers and the 402 answer (x402 `accepts`).
import { z } from "@hono/zod-openapi";
import { type PaidPath, PRICES } from "../domain/prices.ts";
import { errorSchema } from "../lib/schemas.ts";

const requirementV1 = z
  .object({
    scheme: z.literal("exact"),
    network: z.string().openapi({ example: "base-sepolia" }),
    maxAmountRequired: z.string().openapi({ example: "1000" }),
    resource: z.string(),
    description: z.string(),
    mimeType: z.string(),
    payTo: z.string(),
    maxTimeoutSeconds: z.number(),
    asset: z.string(),
    extra: z.object({ name: z.string(), version: z.string() }),
  })
  .openapi("X402RequirementV1");

export const paymentRequiredSchema = errorSchema
  .extend({ x402Version: z.literal(1), accepts: z.array(requirementV1) })
  .openapi("PaymentRequired");

const specPaymentExample = JSON.stringify({
  payer: "0x…",
  recipient: "0x…",
  amount: "1000000000000000",
  endpoint: "/api/intelligence/search",
  nonce: "unique-per-payer",
  signature: "0x…",
});

/** Request headers and error responses to spread into a paid route's createRoute({...}). */
export function paidRouteDocs(path: PaidPath) {
  const price = PRICES[path];
  return {
    headers: z.object({
      "x-payment": z
        .string()
        .optional()
        .openapi({
          description:
            `Spec payment: JSON {payer, recipient, amount, endpoint, nonce, signature}, an EIP-712 Payment ` +
            `(domain "AgentHub x402", version "1", chainId 84532, verifyingContract 0x0) signed by payer; ` +
            `recipient = the platform recipient (GET /api/config), amount >= ${price.spec}, endpoint = ${path}, ` +
            `nonce unused by the payer. Also accepted: an x402 v1 X-PAYMENT (base64 JSON, scheme exact, ` +
            `EIP-3009 USDC, ${price.usdc} base units).`,
          example: specPaymentExample,
        }),
      "payment-signature": z
        .string()
        .optional()
        .openapi({
          description: `x402 v2 payment (base64 JSON): scheme exact on eip155:84532, EIP-3009 authorization of exactly ${price.usdc} USDC base units to the platform recipient. Settled on chain after a successful answer (PAYMENT-RESPONSE header).`,
        }),
    }),
    responses: {
      400: {
        description: "VALIDATION_ERROR, INVALID_ENDPOINT (payment for another endpoint), NONCE_REUSED",
        content: { "application/json": { schema: errorSchema } },
      },
      401: {
        description: "INVALID_PAYMENT: malformed payment, signature not recovering the payer, wrong recipient",
        content: { "application/json": { schema: paymentRequiredSchema } },
      },
      402: {
        description:
          "PAYMENT_REQUIRED (no payment), INSUFFICIENT_AMOUNT, PAYMENT_SETTLEMENT_FAILED. Carries the x402 " +
          "requirements: v1 `accepts` in the body, v2 in the base64 PAYMENT-REQUIRED header.",
        headers: z.object({
          "PAYMENT-REQUIRED": z.string().openapi({ description: "x402 v2 PaymentRequired, base64 JSON" }),
        }),
        content: { "application/json": { schema: paymentRequiredSchema } },
      },
      503: { description: "RELAYER_UNAVAILABLE", content: { "application/json": { schema: errorSchema } } },
      504: {
        description: "PAYMENT_PENDING: the x402 settlement is not mined yet; send the same payment again",
        content: { "application/json": { schema: errorSchema } },
      },
    },
  };
}

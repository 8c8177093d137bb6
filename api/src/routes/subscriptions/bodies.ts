// Request bodies of the subscription writes: each carries the poster's signed request (SIWE); opening and topping up
// also carry a USDC permit to the SubscriptionVault.
import { z } from "@hono/zod-openapi";
import { address, baseUnits, hexSignature } from "../../lib/schemas.ts";

const signed = {
  signature: hexSignature,
  message: z.string().min(1).max(4000).openapi({ description: "EIP-4361 message (buildActionMessage)" }),
};

const permit = z
  .object({
    deadline: z.coerce.number().int().min(0).openapi({ description: "unix seconds (chain time)" }),
    signature: hexSignature,
  })
  .openapi({ description: "EIP-2612 USDC permit of `amount` to the SubscriptionVault, signed by the poster" });

export const createBody = z
  .object({
    instructions: z.string().min(1).max(5000).openapi({ example: "Summarize the top AI news daily for 30 days" }),
    rewardPerRun: baseUnits.openapi({ example: "1000000" }),
    posterAddress: address,
    amount: baseUnits.openapi({
      description: "USDC base units prepaid into the vault: at least one run (costs.totalPerRun); costs.total pays all",
    }),
    startsAt: z.coerce
      .number()
      .int()
      .min(0)
      .openapi({ description: "the terms' first run, unix seconds: preview's terms.startsAt (valid 15 minutes)" }),
    consent: z.object({ deadline: z.coerce.number().int().min(0), signature: hexSignature }).openapi({
      description: "the poster's EIP-712 Subscribe signature over the terms and amount (subscribeTypedData)",
    }),
    permit,
    ...signed,
  })
  .openapi("SubscriptionCreate");

export const topupBody = z
  .object({
    amount: baseUnits.openapi({ description: "USDC base units added from the poster's wallet", example: "1050000" }),
    permit,
    ...signed,
  })
  .openapi("SubscriptionTopup");

export const signedBody = z.object(signed).openapi("SubscriptionSignedAction");

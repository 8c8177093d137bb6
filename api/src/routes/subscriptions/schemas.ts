import { z } from "@hono/zod-openapi";
import { address, baseUnits, hexSignature, pathId, txHash } from "../../lib/schemas.ts";
import { SUBSCRIPTION_STATUSES } from "./repository.ts";

const signed = {
  signature: hexSignature,
  message: z.string().min(1).max(4000).openapi({ description: "EIP-4361 message (buildActionMessage)" }),
};

export const createBody = z
  .object({
    instructions: z.string().min(1).max(5000).openapi({ example: "Summarize the top AI news daily for 30 days" }),
    rewardPerRun: baseUnits.openapi({ example: "1000000" }),
    posterAddress: address,
    txHash: txHash.openapi({
      description: "the poster's USDC transfer of the prepaid total to the subscription account",
    }),
    ...signed,
  })
  .openapi("SubscriptionCreate");

export const topupBody = z
  .object({
    amount: baseUnits.openapi({ description: "USDC base units transferred", example: "1050000" }),
    txHash: txHash.openapi({ description: "the poster's USDC transfer of `amount` to the subscription account" }),
    ...signed,
  })
  .openapi("SubscriptionTopup");

export const signedBody = z.object(signed).openapi("SubscriptionSignedAction");

export const idParam = z.object({ id: pathId("id") });

export const listQuery = z.object({
  posterAddress: address.optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  page: z.coerce.number().int().min(1).max(100_000).default(1),
  limit: z.coerce.number().int().min(1).max(100).default(20),
});

export const previewQuery = z.object({
  instructions: z.string().min(1).max(5000),
  rewardPerRun: baseUnits,
});

export const subscription = z
  .object({
    id: z.number().int(),
    posterAddress: z.string(),
    cadence: z.string().openapi({ example: "daily for 30 days" }),
    interval: z.string(),
    everySeconds: z.number().int(),
    task: z.string(),
    instructions: z.string(),
    totalRuns: z.number().int(),
    runsCreated: z.number().int(),
    runsRemaining: z.number().int(),
    rewardPerRun: z.string(),
    platformFeePerRun: z.string(),
    totalPerRun: z.string(),
    balanceRemaining: z.string(),
    totalFunded: z.string(),
    forfeited: z.string(),
    status: z.enum(SUBSCRIPTION_STATUSES),
    startsAt: z.string(),
    nextRunAt: z.string().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Subscription");

export const subscriptionRun = z
  .object({
    slot: z.number().int(),
    bountyId: z.number().int(),
    scheduledFor: z.string(),
    amount: z.string(),
    status: z.enum(["PENDING", "CREATED"]),
    txHash: z.string().nullable(),
    createdAt: z.string(),
  })
  .openapi("SubscriptionRun");

export const detected = z
  .object({
    cadence: z.string(),
    interval: z.string(),
    everySeconds: z.number().int(),
    totalRuns: z.number().int(),
    startsAt: z.string(),
    endsAt: z.string(),
    task: z.string(),
  })
  .openapi("SubscriptionDetected");

export const costs = z
  .object({
    rewardPerRun: z.string(),
    platformFeePerRun: z.string(),
    totalPerRun: z.string(),
    totalRuns: z.number().int(),
    total: z.string(),
  })
  .openapi("SubscriptionCosts");

export const limits = z
  .object({
    maxRuns: z.number().int(),
    maxDurationSeconds: z.number().int(),
    minIntervalSeconds: z.number().int(),
    minRewardPerRun: z.string(),
    maxRewardPerRun: z.string(),
  })
  .openapi("SubscriptionLimits");

export const previewResult = z
  .object({ detected, costs, paymentAddress: z.string(), limits })
  .openapi("SubscriptionPreview");

export const createResult = z
  .object({ subscription, detected, costs, txHash: z.string(), credited: z.string(), message: z.string() })
  .openapi("SubscriptionCreated");

export const detailResult = z.object({ subscription, runs: z.array(subscriptionRun) }).openapi("SubscriptionDetail");

export const listResult = z
  .object({
    subscriptions: z.array(subscription),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi("SubscriptionList");

export const outcome = z
  .object({
    success: z.boolean(),
    subscription,
    credited: z.string().optional(),
    forfeited: z.string().optional(),
    txHash: z.string().optional(),
    message: z.string(),
  })
  .openapi("SubscriptionOutcome");

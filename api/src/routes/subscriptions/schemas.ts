import { z } from "@hono/zod-openapi";
import { address, baseUnits, hexSignature, pageQuery, pathId } from "../../lib/schemas.ts";
import { SUBSCRIPTION_STATUSES } from "../../stores/subscriptions.ts";

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

export const idParam = z.object({ id: pathId("id") });

export const listQuery = z.object({
  posterAddress: address.optional(),
  status: z.enum(SUBSCRIPTION_STATUSES).optional(),
  ...pageQuery({ maxPage: 100_000 }),
});

export const previewQuery = z.object({
  instructions: z.string().min(1).max(5000),
  rewardPerRun: baseUnits,
  posterAddress: address.optional(),
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
    totalRuns: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "null: open-ended (runs until the balance is spent)" }),
    runsCreated: z.number().int(),
    runsRemaining: z.number().int().nullable(),
    rewardPerRun: z.string(),
    platformFeePerRun: z.string(),
    totalPerRun: z.string(),
    balanceRemaining: z.string(),
    totalFunded: z.string(),
    refunded: z
      .string()
      .openapi({ description: "returned to the subscriber on chain (cancel, or left after the last run)" }),
    vaultSubscriptionId: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "the id in the SubscriptionVault contract that escrows the balance" }),
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
    totalRuns: z.number().int().nullable().openapi({ description: "null: open-ended" }),
    startsAt: z.string(),
    endsAt: z.string().nullable().openapi({ description: "end of the last interval; null when open-ended" }),
    nextRuns: z
      .array(z.string())
      .openapi({ description: "when the first runs fall (ISO, UTC): up to 5, fewer if the schedule has fewer" }),
    anchor: z.object({ weekday: z.string().optional(), timeOfDay: z.string().optional() }).nullable().openapi({
      description: "what fixes the run times (weekday, time of day in UTC), or null: the first run is due now",
    }),
    task: z.string(),
  })
  .openapi("SubscriptionDetected");

export const costs = z
  .object({
    rewardPerRun: z.string(),
    platformFeePerRun: z.string(),
    totalPerRun: z.string(),
    totalRuns: z.number().int().nullable(),
    total: z.string().nullable().openapi({ description: "every run of a bounded schedule; null when open-ended" }),
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

export const terms = z
  .object({
    rewardPerRun: z.string(),
    interval: z.number().int(),
    startsAt: z.number().int().openapi({ description: "unix seconds" }),
    totalRuns: z.number().int().openapi({ description: "0: open-ended" }),
    runDuration: z.number().int(),
    maxRevisions: z.number().int(),
  })
  .openapi("SubscriptionTerms");

export const previewResult = z
  .object({
    detected,
    costs,
    vault: z
      .string()
      .openapi({ description: "the SubscriptionVault: spender of the permit, verifyingContract of the consent" }),
    terms: terms.openapi({ description: "the vault terms to sign with the subscriber's address (EIP-712 Subscribe)" }),
    nonce: z
      .string()
      .optional()
      .openapi({ description: "the vault's nonces(posterAddress), when posterAddress is given" }),
    limits,
  })
  .openapi("SubscriptionPreview");

export const createResult = z
  .object({ subscription, detected, costs, txHash: z.string(), credited: z.string(), message: z.string() })
  .openapi("SubscriptionCreated");

export const runsQuery = z.object(pageQuery({ defaultLimit: 50, maxPage: 100_000 }));

export const runsResult = z
  .object({
    subscriptionId: z.number().int(),
    runs: z.array(subscriptionRun),
    total: z.number().int(),
    page: z.number().int(),
    limit: z.number().int(),
  })
  .openapi("SubscriptionRuns");

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
    refunded: z.string().optional().openapi({ description: "cancel: the unspent balance returned to the subscriber" }),
    txHash: z.string().optional(),
    message: z.string(),
  })
  .openapi("SubscriptionOutcome");

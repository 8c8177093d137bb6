import { z } from "@hono/zod-openapi";
import { address, baseUnits, pageQuery, pathId } from "../../lib/schemas.ts";
import { SUBSCRIPTION_STATUSES } from "../../stores/subscriptions.ts";

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

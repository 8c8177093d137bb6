import { z } from "@hono/zod-openapi";
import { address, baseUnits, hexSignature, offsetPageQuery, pathId, txHash } from "../../lib/schemas.ts";

export const agentTokenIdParam = z.object({
  agentTokenId: pathId("agentTokenId", "agent id (= AgentIdentity token id)"),
});
export const agentIdParam = z.object({ agentId: pathId("agentId", "agent id (= AgentIdentity token id)") });
export const bountyIdParam = z.object({ bountyId: pathId("bountyId", "run id (bountyId) of the runs API") });

const agentTokenId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER).openapi({ example: 1 });

/** EIP-4361 signed request fields (resource urn:agenthub:<action>:<kind>:<id>). */
export const signedFields = {
  message: z.string().min(1).max(4000).openapi({ description: "EIP-4361 message (GET /api/auth/nonce for the nonce)" }),
  signature: hexSignature,
};

export const stakeBody = z
  .object({
    agentTokenId,
    amountUsdc: baseUnits.openapi({ description: "USDC base units (6 decimals)", example: "25000000" }),
    walletAddress: address.openapi({ description: "the paying wallet: the agent's wallet or its owner" }),
    deadline: z.number().int().positive().optional().openapi({ description: "gasless: permit deadline, unix seconds" }),
    signature: hexSignature
      .optional()
      .openapi({ description: "gasless: EIP-2612 USDC permit by walletAddress for spender = InsurancePool" }),
    txHash: txHash.optional().openapi({ description: "self-paid: the wallet's own InsurancePool.stake transaction" }),
  })
  .refine((b) => (b.txHash !== undefined) !== (b.signature !== undefined || b.deadline !== undefined), {
    message: "give either txHash, or signature + deadline (gasless permit)",
  })
  .refine((b) => b.txHash !== undefined || (b.signature !== undefined && b.deadline !== undefined), {
    message: "a gasless stake needs both signature and deadline",
  });

export const coverageSummary = z
  .object({
    agentTokenId: z.number(),
    coverage: z.string().openapi({ description: "USDC base units staked (InsurancePool.coverageOf)" }),
    availableCoverage: z.string().openapi({ description: "coverage minus the pending withdrawal" }),
    pendingWithdrawal: z
      .object({
        amount: z.string(),
        availableAt: z.string().openapi({ description: "ISO time (chain time) from which it can be withdrawn" }),
      })
      .nullable(),
    withdrawalCooldownSeconds: z.number(),
    updatedAt: z.string().nullable().openapi({ description: "last indexed coverage change" }),
  })
  .openapi("InsuranceStake");

export const stakeResult = z
  .object({
    success: z.boolean(),
    agentTokenId: z.number(),
    amountUsdc: z.string().openapi({ description: "staked by this transaction" }),
    stakedBy: z.string(),
    txHash: z.string(),
    stake: coverageSummary,
    message: z.string(),
  })
  .openapi("InsuranceStakeResult");

export const withdrawBody = z
  .object({
    agentTokenId,
    phase: z.enum(["request", "complete"]).openapi({
      description:
        "request: start the 14-day cooldown for amountUsdc (signed action insurance-withdraw-request); " +
        "complete: pay the pending withdrawal to the token owner once the cooldown is over (insurance-withdraw)",
    }),
    amountUsdc: baseUnits.optional().openapi({ description: "required for phase=request" }),
    ...signedFields,
  })
  .refine((b) => b.phase !== "request" || b.amountUsdc !== undefined, {
    message: "amountUsdc is required for phase=request",
    path: ["amountUsdc"],
  });

export const withdrawResult = z
  .object({
    success: z.boolean(),
    agentTokenId: z.number(),
    phase: z.enum(["requested", "withdrawn"]),
    amountUsdc: z.string(),
    availableAt: z.string().nullable().openapi({ description: "phase requested: when complete becomes possible" }),
    paidTo: z.string().nullable().openapi({ description: "phase withdrawn: the identity token owner paid" }),
    txHash: z.string(),
    stake: coverageSummary,
    message: z.string(),
  })
  .openapi("InsuranceWithdrawResult");

export const coverageQuery = z.object({
  requiredAmount: baseUnits.openapi({
    param: { name: "requiredAmount", in: "query" },
    description: "USDC base units the caller needs covered",
    example: "10000000",
  }),
});

export const coverageResult = z
  .object({
    agentTokenId: z.number(),
    requiredAmount: z.string(),
    hasCoverage: z.boolean(),
    availableCoverage: z.string(),
  })
  .openapi("InsuranceCoverage");

export const stakeEntry = z
  .object({
    from: z.string(),
    amountUsdc: z.string(),
    txHash: z.string(),
    stakedAt: z.string(),
  })
  .openapi("InsuranceStakeEntry");

export const pageQuery = z.object({
  ...offsetPageQuery(50),
});

export const agentStakes = z
  .object({
    agentId: z.number(),
    stake: coverageSummary,
    stakes: z.array(stakeEntry),
    total: z.number(),
    limit: z.number(),
    offset: z.number(),
  })
  .openapi("InsuranceAgentStakes");

export const claimEntry = z
  .object({
    bountyId: z.number(),
    onchainRunId: z.string(),
    agentTokenId: z.number(),
    poster: z.string(),
    amountUsdc: z.string(),
    txHash: z.string(),
    claimedAt: z.string(),
  })
  .openapi("InsuranceClaim");

export const bountyClaims = z
  .object({
    bountyId: z.number(),
    onchainRunId: z.string().nullable(),
    failedAgentId: z.number().nullable().openapi({ description: "on-chain failureOf(run).agentId, null if none" }),
    failureKind: z
      .enum(["REJECTED", "TIMED_OUT", "DISPUTE_LOST"])
      .nullable()
      .openapi({ description: "how the agent failed; only TIMED_OUT and DISPUTE_LOST are insured losses" }),
    cover: z.string().openapi({
      description:
        "the agreed damages the poster declared for the run before it was claimed (InsurancePool.runCoverOf); 0: none, nothing to claim",
    }),
    insuredLoss: z.string().openapi({
      description:
        "the cover minus the stake already slashed to the poster for this failure (0 if not insured); a claim pays it, capped by the agent's coverage",
    }),
    claimable: z.boolean().openapi({ description: "a claim against failedAgentId's coverage is possible now" }),
    refusal: z
      .string()
      .nullable()
      .openapi({ description: "why a claim is not possible now (the claim's error code), null when claimable" }),
    claims: z.array(claimEntry),
  })
  .openapi("InsuranceBountyClaims");

export const claimBody = z.object(signedFields);
export const claimResult = z
  .object({ success: z.boolean(), claim: claimEntry, txHash: z.string(), message: z.string() })
  .openapi("InsuranceClaimResult");

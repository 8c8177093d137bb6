// The published inputs document of a reputation score (GET /api/reputation/{id}/inputs), as OpenAPI describes it.
import { z } from "@hono/zod-openapi";

const count = z.number().int().nonnegative();

export const reputationInputsSchema = z
  .object({
    cid: z.string(),
    uri: z.string(),
    document: z.object({
      type: z.literal("agenthub-reputation-inputs/1"),
      agentId: z.number(),
      formulaVersion: z.string(),
      score: z.number(),
      computedAt: z.string().openapi({ description: "chain time of the computation, unix seconds" }),
      chain: z.object({ registeredAt: z.string(), totalClaimed: count, completions: count, failures: count }),
      offChain: z.object({
        checks: count,
        ups: count,
        latencySumMs: z.number(),
        attestationCount: count,
        attestationWeightedSum: z.number(),
        attestationWeightSum: z.number(),
        expertiseWeightedSum: z.number(),
        expertiseWeightSum: z.number(),
        badges: z.array(z.string()),
        skillScores: z.record(z.string(), z.number()),
        capabilities: z.array(z.string()),
        programmingLangs: z.array(z.string()),
      }),
    }),
  })
  .openapi("ReputationInputs");

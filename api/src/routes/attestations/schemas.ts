import { z } from "@hono/zod-openapi";
import { ATTESTATION_CATEGORIES } from "../../domain/reputation.ts";

const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const agentId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const idParam = z.object({ id: id.openapi({ param: { name: "id", in: "path" }, example: 1 }) });
export const agentIdParam = z.object({ agentId: id.openapi({ param: { name: "agentId", in: "path" }, example: 1 }) });

export const attestationSchema = z
  .object({
    id: z.number(),
    attestorId: z.number(),
    subjectId: z.number(),
    category: z.enum(ATTESTATION_CATEGORIES),
    rating: z.number(),
    comment: z.string().nullable(),
    weight: z.number(),
    createdAt: z.string(),
  })
  .openapi("Attestation");
const agentRef = z.object({ id: z.number(), walletAddress: z.string() });
const attestorRef = agentRef.extend({ reputation: z.number() });

// category and rating are checked by the use case so each broken rule gets its own code.
export const createBody = z.object({
  attestorId: agentId,
  subjectId: agentId,
  category: z.string().max(64),
  rating: z.number(),
  comment: z.string().max(1000).optional(),
});

export const agentAttestations = z.object({
  agentId: z.number(),
  received: z.array(attestationSchema.extend({ attestor: attestorRef })),
  given: z.array(attestationSchema.extend({ subject: agentRef })),
});

const categoryStats = z.object({
  count: z.number(),
  averageRating: z.number(),
  weightedScore: z.number(),
  totalWeight: z.number(),
});
export const attestationStats = z.object({
  agentId: z.number(),
  count: z.number(),
  averageRating: z.number().openapi({ description: "plain average of ratings, 0 with none" }),
  attestationScore: z.number().openapi({ description: "sum(rating x weight) / sum(weight), 0 with none" }),
  totalWeight: z.number(),
  givenCount: z.number(),
  categories: z.object(
    Object.fromEntries(ATTESTATION_CATEGORIES.map((c) => [c, categoryStats])) as Record<
      (typeof ATTESTATION_CATEGORIES)[number],
      typeof categoryStats
    >,
  ),
});

export const attestationDetail = z.object({
  attestation: attestationSchema.extend({
    attestor: attestorRef,
    subject: agentRef,
    attestorScore: z.number().openapi({ description: "the attestor's reputation the weight was taken from" }),
  }),
});

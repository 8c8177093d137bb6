import { z } from "@hono/zod-openapi";
import { baseUnits, domainNameSchema } from "../../lib/schemas.ts";

const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
export const idParam = z.object({ id: id.openapi({ param: { name: "id", in: "path" }, example: 1 }) });
export const agentIdParam = z.object({ agentId: id.openapi({ param: { name: "agentId", in: "path" }, example: 1 }) });
export const skillNameParam = z.object({ skillName: z.string().openapi({ param: { name: "skillName", in: "path" } }) });
const agentId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

export const verificationSchema = z
  .object({
    id: z.number(),
    agentId: z.number(),
    type: z.enum(["domain", "stake", "skill"]),
    status: z.enum(["PENDING", "VERIFIED", "FAILED", "EXPIRED"]),
    domain: z.string().optional(),
    dnsRecord: z.string().optional(),
    minStakeAmount: z.string().optional(),
    actualBalance: z.string().optional(),
    skillName: z.string().optional(),
    score: z.number().optional(),
    badge: z.string().optional(),
    message: z.string().optional(),
    createdAt: z.string(),
    verifiedAt: z.string().nullable(),
    expiresAt: z.string().nullable(),
  })
  .openapi("Verification");

export const verificationOut = z.object({ verification: verificationSchema });

export const domainBody = z.object({ agentId, domain: domainNameSchema("example.com") });
export const stakeBody = z.object({ agentId, minStakeAmount: baseUnits });
export const attemptBody = z.object({ agentId });

export const skillBody = z.object({
  agentId,
  skillName: z.string().min(1).max(64),
  attemptId: z.string().min(1).max(64).openapi({
    description: "From POST /api/verifications/skill/{skillName}/attempts: the questions answered were drawn for it",
  }),
  testResults: z.object({
    // Accepted for compatibility and ignored: the server grades the answers itself.
    score: z.number().min(0).max(100).optional(),
    passed: z.boolean().optional(),
    questions: z
      .array(
        z.object({
          question: z.string().max(1000),
          answer: z.string().max(1000),
          correct: z.boolean().optional(),
        }),
      )
      .max(100),
  }),
});

export const drawnTest = z.object({
  attemptId: z.string(),
  skillName: z.string(),
  passScore: z.number(),
  expiresAt: z.string(),
  questions: z.array(z.object({ question: z.string(), options: z.array(z.string()) })),
});

export const agentVerifications = z.object({ agentId: z.number(), verifications: z.array(verificationSchema) });

// Request and response schemas of the Reports API (supplement §Reports).
import { z } from "@hono/zod-openapi";
import {
  EVIDENCE_MAX,
  EVIDENCE_MIN,
  REPORT_CATEGORIES,
  REPORT_STATUSES,
  RISK_STATUSES,
} from "../../domain/report-risk.ts";
import { hexSignature, pathId } from "../../lib/schemas.ts";

/** Evidence is trimmed, then must be 10..4000 characters (INVALID_EVIDENCE otherwise). */

export const agentIdParam = z.object({ agentId: pathId("agentId") });
export const reportIdParam = z.object({ reportId: pathId("reportId") });

export const createReportBody = z
  .object({
    subjectAgentId: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
    category: z
      .string()
      .max(64)
      .openapi({ description: `Case-insensitive, one of ${REPORT_CATEGORIES.join(", ")}`, example: "SPAM" }),
    evidence: z
      .string()
      .max(EVIDENCE_MAX * 4)
      .openapi({ description: `What happened, ${EVIDENCE_MIN}..${EVIDENCE_MAX} characters after trimming` }),
    bountyId: z
      .number()
      .int()
      .positive()
      .max(Number.MAX_SAFE_INTEGER)
      .optional()
      .openapi({ description: "A run (bounty) the subject took part in, as poster or agent" }),
    message: z.string().min(1).max(4000).openapi({ description: "SIWE message for report:agent:<subjectAgentId>" }),
    signature: hexSignature,
  })
  .openapi("CreateReport");

export const createReportResult = z
  .object({
    reportId: z.number(),
    status: z.literal("PENDING"),
    subjectAgentId: z.number(),
    category: z.enum(REPORT_CATEGORIES),
    createdAt: z.string(),
    message: z.string(),
  })
  .openapi("ReportCreated");

export const signedQuery = z.object({
  message: z.string().min(1).max(4000).openapi({ description: "SIWE message for list-reports:reporter:<address>" }),
  signature: hexSignature,
});

export const reportRecord = z
  .object({
    reportId: z.number(),
    subjectAgentId: z.number(),
    category: z.enum(REPORT_CATEGORIES),
    evidence: z.string(),
    bountyId: z.number().nullable(),
    status: z.enum(REPORT_STATUSES),
    createdAt: z.string(),
    resolvedAt: z.string().nullable(),
  })
  .openapi("Report");

export const myReportsResult = z
  .object({ reporter: z.string(), total: z.number(), reports: z.array(reportRecord) })
  .openapi("MyReports");

export const riskStatus = z.enum(RISK_STATUSES);

export const countResult = z
  .object({
    agentId: z.number(),
    reportCount: z.number().openapi({ description: "Every report ever filed against the agent (both endpoints)" }),
    status: riskStatus,
    pending: z.number(),
    confirmed: z.number(),
    dismissed: z.number(),
  })
  .openapi("ReportCount");

export const riskResult = z
  .object({
    agentId: z.number(),
    status: riskStatus,
    riskScore: z.number().int().min(0).max(100),
    chainStatus: z.enum(["UNVERIFIED", "PROVISIONAL", "ESTABLISHED", "FROZEN", "BANNED"]),
    distinctReporters: z.number(),
    pending: z.number(),
    confirmed: z.number(),
  })
  .openapi("AgentRisk");

export const resolveBody = z.object({
  status: z.enum(["CONFIRMED", "DISMISSED"]),
  note: z.string().trim().max(1000).optional(),
});

export const resolveResult = z
  .object({ report: reportRecord, agent: riskResult, message: z.string() })
  .openapi("ReportResolved");

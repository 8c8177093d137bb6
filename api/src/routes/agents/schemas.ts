import { z } from "@hono/zod-openapi";
import { hexSignature, httpUrl, pathId } from "../../lib/schemas.ts";

const tag = z.string().trim().min(1).max(64);
export const agentIdParam = z.object({ id: pathId("id") });

export const endpointsSchema = z
  .object({ webhook: httpUrl.optional() })
  .catchall(httpUrl)
  .refine((v) => Object.keys(v).length <= 10, "at most 10 endpoints");

export const profileFields = {
  name: z.string().trim().min(1).max(100),
  description: z.string().max(2000).optional(),
  capabilities: z.array(tag).max(10).optional(),
  programmingLangs: z.array(tag).max(20).optional(),
  domains: z.array(tag).max(20).optional(),
  tools: z.array(tag).max(20).optional(),
  endpoints: endpointsSchema.optional(),
  image: z
    .string()
    .max(2048)
    .regex(/^(ipfs|https):\/\//, "ipfs:// or https:// URI")
    .optional(),
};

export const registerBody = z.object(profileFields).strict();

export const updateBody = z
  .object({
    message: z
      .string()
      .min(1)
      .max(4000)
      .openapi({ description: "EIP-4361 message with resource urn:agenthub:update-profile:agent:<id>" }),
    signature: hexSignature,
    name: profileFields.name.optional(),
    description: profileFields.description,
    capabilities: profileFields.capabilities,
    programmingLangs: profileFields.programmingLangs,
    domains: profileFields.domains,
    tools: profileFields.tools,
    endpoints: profileFields.endpoints,
    image: profileFields.image,
  })
  .strict();

export const agentListItem = z.object({
  tokenId: z.number(),
  name: z.string().openapi({ description: "the profile's name (empty before the profile is stored)" }),
  walletAddress: z.string(),
  ipfsHash: z.string(),
  claimed: z.boolean(),
  createdAt: z.string(),
  capabilities: z.array(z.string()),
  programmingLangs: z.array(z.string()),
  domains: z.array(z.string()),
  tools: z.array(z.string()),
});

export const agentStatus = z.enum(["UNVERIFIED", "PROVISIONAL", "ESTABLISHED", "FROZEN", "BANNED"]);

export const agentDetail = agentListItem.extend({
  id: z.number(),
  description: z.string(),
  ownerAddress: z.string(),
  endpoints: z.record(z.string(), z.string()),
  status: agentStatus,
  stakedAmount: z.string(),
  stakedAt: z.string().nullable(),
  slashHistory: z.string().openapi({ description: "JSON array encoded as a string (spec)" }),
  reportCount: z.number(),
  reputation: z.object({
    score: z.number(),
    completions: z.number(),
    totalClaimed: z.number(),
    totalVolume: z.string(),
  }),
});

export const slashEntry = z.object({
  amount: z.string(),
  percentage: z.number(),
  reason: z.string(),
  beneficiary: z.string(),
  txHash: z.string(),
  timestamp: z.string(),
});

export const stakeStatus = z.object({
  agentId: z.number(),
  status: agentStatus,
  stakedAmount: z.string(),
  stakedAt: z.string().nullable(),
  slashHistory: z.array(slashEntry),
  isStaked: z.boolean(),
  canClaimRuns: z.boolean(),
  minimumStake: z.string(),
  pendingWithdrawal: z.string(),
});

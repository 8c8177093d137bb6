// Request bodies of the run routes: the signed-request fields every write carries, the party's on-chain consent,
// and each operation's own fields.
import { z } from "@hono/zod-openapi";
import { address, hexSignature, txHash } from "../../lib/schemas.ts";

/** A positive uint128 of USDC base units, as a decimal string. */
const positiveUnits = z
  .string()
  .regex(/^\d{1,39}$/, "USDC base units as an unsigned integer string")
  .refine((v) => BigInt(v) > 0n && BigInt(v) < 2n ** 128n, "between 1 and 2^128 - 1 base units");

/** The signed-request fields every run write carries (EIP-4361, resource urn:agenthub:<action>:run:<id>). */
export const signedFields = {
  message: z
    .string()
    .min(1)
    .max(4000)
    .openapi({ description: "EIP-4361 message whose resources include urn:agenthub:<action>:run:<id>" }),
  signature: hexSignature,
};

/** The `consent` field of every relayed run step. */
export const consentField = z
  .object({
    signer: address.optional().openapi({ description: "who signed it (default: the signer of the request's message)" }),
    nonce: z.string().regex(/^\d{1,78}$/, "uint256 as a decimal string"),
    deadline: z.number().int().positive().openapi({ description: "unix seconds (chain time)" }),
    signature: hexSignature,
  })
  .strict()
  .openapi("RunConsent", {
    description:
      "EIP-712 RunConsent of the poster (approve, request-revision, reject, cancel, dispute) or of the agent token's owner (claim, start, submit, dispute), for RunEscrow's ...BySig; see GET /api/runs/{id}/consent",
  });

export const createBody = z
  .object({
    posterAddress: address,
    title: z.string().trim().min(1).max(200),
    description: z.string().trim().min(1).max(20_000),
    reward: positiveUnits,
    deadline: z.iso.datetime({ offset: true }).openapi({ description: "ISO 8601; must be in the future" }),
    maxRevisions: z.number().int().min(0).max(10).default(2),
    requiredCoverage: positiveUnits.optional().openapi({
      description:
        "agreed damages (USDC base units) insurance pays if an agent times out or loses a dispute on this run; an agent needs that much active coverage to claim it. Set on chain after funding with POST /api/runs/{id}/cover",
    }),
    ...signedFields,
  })
  .strict();

export const fundBody = z
  .object({
    ...signedFields,
    authorization: z
      .object({
        validBefore: z
          .number()
          .int()
          .positive()
          .openapi({ description: "unix seconds (chain time) from which the token refuses it" }),
        signature: hexSignature.openapi({
          description:
            "the poster's EIP-3009 ReceiveWithAuthorization (USDC domain): to RunEscrow, value reward + fee, validAfter 0, nonce RunEscrow.fundingNonce(poster, reward, deadline, maxRevisions, requiredCoverage, ipfsHash) (SDK: runFundingTypedData)",
        }),
      })
      .optional(),
    txHash: txHash.optional().openapi({ description: "a createRun transaction the poster sent directly" }),
  })
  .strict()
  .refine(
    (b) => (b.authorization === undefined) !== (b.txHash === undefined),
    "give exactly one of authorization or txHash",
  );

export const claimBody = z.object({
  agentId: z.number().int().positive(),
  walletAddress: address,
  ...signedFields,
  consent: consentField,
});

export const submitBody = z
  .object({
    ...signedFields,
    consent: consentField,
    deliverable: z
      .union([z.string().min(1).max(32_000), z.record(z.string(), z.unknown())])
      .optional()
      .openapi({ description: "the work itself (stored under its CID; the chain keeps its sha-256)" }),
    deliverableHash: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, "bytes32 hex")
      .optional()
      .openapi({ description: "a bytes32 commitment to work delivered elsewhere" }),
  })
  .strict()
  .refine(
    (b) => (b.deliverable === undefined) !== (b.deliverableHash === undefined),
    "give exactly one of deliverable or deliverableHash",
  );

export const signedOnly = z.object(signedFields).strict();
/** A step the relayer submits for its party: the signed request plus the party's on-chain consent. */
export const consentedOnly = z.object({ ...signedFields, consent: consentField }).strict();
export const feedbackBody = z
  .object({ ...signedFields, consent: consentField, feedback: z.string().trim().min(1).max(5000) })
  .strict();
export const reasonBody = z
  .object({ ...signedFields, consent: consentField, reason: z.string().trim().min(1).max(5000) })
  .strict();
export const resolveBody = z
  .object({ outcome: z.enum(["agent", "poster"]), note: z.string().trim().max(5000).optional() })
  .strict();

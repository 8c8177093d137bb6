// GET /api/runs/:id/consent: the EIP-712 RunConsent a party signs for a relayed step.
import { RUN_CONSENT_ACTIONS } from "@agenthub/common/protocol";
import { createRoute, z } from "@hono/zod-openapi";
import type { Hex } from "viem";
import { router } from "../../lib/openapi.ts";
import { address, errorResponses, json } from "../../lib/schemas.ts";
import { consentRequest } from "../../use-cases/runs/consent.ts";
import { runIdParam } from "./schemas.ts";

const bytes32 = z.string().regex(/^0x[0-9a-fA-F]{64}$/, "bytes32 hex");

const consentQuery = z.object({
  action: z.enum(RUN_CONSENT_ACTIONS).openapi({ description: "the escrow action (its ...BySig function)" }),
  signer: address.openapi({ description: "who will sign (its next nonce of the run's key is used)" }),
  agentId: z.coerce.number().int().positive().optional().openapi({ description: "claim: the claiming agent" }),
  deliverableHash: bytes32
    .optional()
    .openapi({ description: "submit: sha-256 of the deliverable's JSON text, or the bytes32 you submit" }),
});

const consentView = z
  .object({
    action: z.enum(RUN_CONSENT_ACTIONS),
    signer: z.string(),
    parties: z.array(z.string()).openapi({ description: "who may sign this consent (the escrow refuses others)" }),
    nonce: z.string(),
    deadline: z.number(),
    typedData: z.object({
      domain: z.object({
        name: z.string(),
        version: z.string(),
        chainId: z.number(),
        verifyingContract: z.string(),
      }),
      types: z.record(z.string(), z.array(z.object({ name: z.string(), type: z.string() }))),
      primaryType: z.literal("RunConsent"),
      message: z.object({
        action: z.string(),
        runId: z.string(),
        agentId: z.string(),
        deliverableHash: z.string(),
        terms: z
          .object({
            poster: z.string(),
            reward: z.string(),
            deadline: z.string(),
            maxRevisions: z.string(),
            cover: z.string(),
          })
          .openapi({
            description:
              "claim: the run's terms as the escrow holds them (reward, deadline, revisions and the cover your coverage answers for); the escrow refuses the consent for a run with other terms. Other actions: zeros",
          }),
        nonce: z.string(),
        deadline: z.string(),
      }),
    }),
  })
  .openapi("RunConsentRequest");

const consentRoute = createRoute({
  method: "get",
  path: "/{id}/consent",
  tags: ["runs"],
  summary:
    "What to sign for a relayed step: the EIP-712 RunConsent (domain, types, message with the signer's next nonce and a deadline an hour of chain time away)",
  request: { params: runIdParam, query: consentQuery },
  responses: { 200: json(consentView, "Typed data to sign"), ...errorResponses(400, 404, 409) },
});

export const consentRoutes = router().openapi(consentRoute, async (c) => {
  const q = c.req.valid("query");
  const r = await consentRequest(c.get("deps"), {
    runId: c.req.valid("param").id,
    action: q.action,
    signer: q.signer as `0x${string}`,
    agentId: q.agentId,
    deliverableHash: q.deliverableHash as Hex | undefined,
  });
  const typed = r.typedData;
  const m = typed.message;
  return c.json(
    {
      action: r.action,
      signer: r.signer,
      parties: r.parties,
      nonce: r.nonce.toString(),
      deadline: Number(r.deadline),
      typedData: {
        domain: typed.domain,
        types: { RunConsent: [...typed.types.RunConsent], RunTerms: [...typed.types.RunTerms] },
        primaryType: "RunConsent" as const,
        message: {
          action: m.action,
          runId: m.runId.toString(),
          agentId: m.agentId.toString(),
          deliverableHash: m.deliverableHash,
          terms: {
            poster: m.terms.poster,
            reward: m.terms.reward.toString(),
            deadline: m.terms.deadline.toString(),
            maxRevisions: m.terms.maxRevisions.toString(),
            cover: m.terms.cover.toString(),
          },
          nonce: m.nonce.toString(),
          deadline: m.deadline.toString(),
        },
      },
    },
    200,
  );
});

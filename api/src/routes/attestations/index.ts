// Attestations: paid peer reviews (spec §4). The x-payment payer speaks for the attestor agent: it must be the
// attestor's wallet or the current owner of its identity token. A rule broken answers with its own 4xx code and
// the payment is given back (requirePayment releases it when the handler answers >= 400).
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../context.ts";
import { ATTESTATION_CATEGORIES } from "../../domain/reputation.ts";
import { errors } from "../../errors.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { paidRouteDocs, requirePayment } from "../../payments/index.ts";
import {
  type AttestationRow,
  agentExists,
  attestationsOf,
  attestationTotals,
  type CategoryStat,
  findAttestation,
} from "../../stores/attestations.ts";
import { createAttestation } from "../../use-cases/attestations/create-attestation.ts";

/** The full path: the payment is bound to it (payments/prices.ts). */
const CREATE_PATH = "/api/attestations/create";
const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);
const agentId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

const attestationSchema = z
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

// category and rating are checked in the handler so each broken rule gets its own code.
const createBody = z.object({
  attestorId: agentId,
  subjectId: agentId,
  category: z.string().max(64),
  rating: z.number(),
  comment: z.string().max(1000).optional(),
});

const docs = paidRouteDocs(CREATE_PATH);

const createRouteDef = createRoute({
  method: "post",
  path: "/create",
  tags: ["attestations"],
  summary: "Attest another agent ($0.005: x-payment, or x402 USDC), paid by the attestor's wallet or owner",
  description:
    "Rules: category quality|reliability|communication|expertise (INVALID_CATEGORY), integer rating 1-5 " +
    "(INVALID_RATING), not oneself (SELF_ATTESTATION), not an agent of the same wallet (SAME_OWNER_ATTESTATION), " +
    "payer = attestor wallet or owner (403 ATTESTOR_NOT_AUTHORIZED), one per attestor, subject and category " +
    "(409 ATTESTATION_EXISTS). The weight comes from the attestor's reputation at creation.",
  middleware: [requirePayment(CREATE_PATH)] as const,
  request: { headers: docs.headers, body: jsonBody(createBody) },
  responses: {
    201: json(z.object({ attestation: attestationSchema }), "Created"),
    ...docs.responses,
    ...errorResponses(403, 404, 409),
  },
});

const listRoute = createRoute({
  method: "get",
  path: "/agent/{agentId}",
  tags: ["attestations"],
  summary: "Attestations an agent received (with the attestor) and gave",
  request: { params: z.object({ agentId: id.openapi({ param: { name: "agentId", in: "path" }, example: 1 }) }) },
  responses: {
    200: json(
      z.object({
        agentId: z.number(),
        received: z.array(attestationSchema.extend({ attestor: attestorRef })),
        given: z.array(attestationSchema.extend({ subject: agentRef })),
      }),
      "Attestations",
    ),
    ...errorResponses(400, 404),
  },
});

const categoryStats = z.object({
  count: z.number(),
  averageRating: z.number(),
  weightedScore: z.number(),
  totalWeight: z.number(),
});
const statsRoute = createRoute({
  method: "get",
  path: "/agent/{agentId}/stats",
  tags: ["attestations"],
  summary: "Counts and averages of the attestations an agent received, overall and per category",
  request: { params: z.object({ agentId: id.openapi({ param: { name: "agentId", in: "path" }, example: 1 }) }) },
  responses: {
    200: json(
      z.object({
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
      }),
      "Statistics",
    ),
    ...errorResponses(400, 404),
  },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["attestations"],
  request: { params: z.object({ id: id.openapi({ param: { name: "id", in: "path" }, example: 1 }) }) },
  responses: {
    200: json(
      z.object({
        attestation: attestationSchema.extend({
          attestor: attestorRef,
          subject: agentRef,
          attestorScore: z.number().openapi({ description: "the attestor's reputation the weight was taken from" }),
        }),
      }),
      "Attestation",
    ),
    ...errorResponses(400, 404),
  },
});

const view = (r: AttestationRow) => ({
  id: Number(r.id),
  attestorId: Number(r.attestor_id),
  subjectId: Number(r.subject_id),
  category: r.category,
  rating: r.rating,
  comment: r.comment,
  weight: r.weight,
  createdAt: r.created_at.toISOString(),
});

async function assertAgent(deps: Deps, agent: number) {
  if (!(await agentExists(deps, agent))) throw errors.agentNotFound(agent);
}

const r4 = (v: number) => Math.round(v * 10_000) / 10_000;
const stat = (r: CategoryStat | undefined) => ({
  count: r?.n ?? 0,
  averageRating: r?.avg ? r4(r.avg) : 0,
  weightedScore: r?.w ? r4((r.wsum ?? 0) / r.w) : 0,
  totalWeight: r?.w ? r4(r.w) : 0,
});

export const attestationRoutes = router()
  .openapi(createRouteDef, async (c) => {
    const payment = c.get("payment");
    const body = c.req.valid("json");
    const row = await createAttestation(c.get("deps"), { ...body, payer: payment.payer, paymentNonce: payment.nonce });
    return c.json({ attestation: view(row) }, 201);
  })
  .openapi(statsRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId: aid } = c.req.valid("param");
    await assertAgent(deps, aid);
    const { received, given } = await attestationTotals(deps, aid);
    const total = stat(received.find((r) => r.category === null));
    return c.json(
      {
        agentId: aid,
        count: total.count,
        averageRating: total.averageRating,
        attestationScore: total.weightedScore,
        totalWeight: total.totalWeight,
        givenCount: given,
        categories: Object.fromEntries(
          ATTESTATION_CATEGORIES.map((cat) => [cat, stat(received.find((r) => r.category === cat))]),
        ) as Record<(typeof ATTESTATION_CATEGORIES)[number], ReturnType<typeof stat>>,
      },
      200,
    );
  })
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId: aid } = c.req.valid("param");
    await assertAgent(deps, aid);
    const { received, given } = await attestationsOf(deps, aid);
    return c.json(
      {
        agentId: aid,
        received: received.map((r) => ({
          ...view(r),
          attestor: { id: Number(r.attestor_id), walletAddress: r.wallet, reputation: r.score ?? 50 },
        })),
        given: given.map((r) => ({ ...view(r), subject: { id: Number(r.subject_id), walletAddress: r.wallet } })),
      },
      200,
    );
  })
  .openapi(getRoute, async (c) => {
    const { id: attestationId } = c.req.valid("param");
    const r = await findAttestation(c.get("deps"), attestationId);
    if (!r) throw errors.notFound("ATTESTATION_NOT_FOUND", `attestation ${attestationId} does not exist`);
    return c.json(
      {
        attestation: {
          ...view(r),
          attestorScore: r.attestor_score,
          attestor: {
            id: Number(r.attestor_id),
            walletAddress: r.attestor_wallet,
            reputation: r.attestor_current ?? 50,
          },
          subject: { id: Number(r.subject_id), walletAddress: r.subject_wallet },
        },
      },
      200,
    );
  });

// Attestations: paid peer reviews (spec §4). The x-payment payer speaks for the attestor agent: it must be the
// attestor's wallet or the current owner of its identity token. A rule broken answers with its own 4xx code and
// the payment is given back (requirePayment releases it when the handler answers >= 400). The rules are in
// use-cases/attestations/.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { paidRouteDocs, requirePayment } from "../../payments/index.ts";
import { attestationStats } from "../../use-cases/attestations/attestation-stats.ts";
import { toAttestationView } from "../../use-cases/attestations/attestation-view.ts";
import { createAttestation } from "../../use-cases/attestations/create-attestation.ts";
import { getAttestation } from "../../use-cases/attestations/get-attestation.ts";
import { listAttestations } from "../../use-cases/attestations/list-attestations.ts";
import {
  agentAttestations,
  agentIdParam,
  attestationDetail,
  attestationSchema,
  attestationStats as attestationStatsSchema,
  createBody,
  idParam,
} from "./schemas.ts";

/** The full path: the payment is bound to it (payments/prices.ts). */
const CREATE_PATH = "/api/attestations/create";

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
  request: { params: agentIdParam },
  responses: { 200: json(agentAttestations, "Attestations"), ...errorResponses(400, 404) },
});

const statsRoute = createRoute({
  method: "get",
  path: "/agent/{agentId}/stats",
  tags: ["attestations"],
  summary: "Counts and averages of the attestations an agent received, overall and per category",
  request: { params: agentIdParam },
  responses: { 200: json(attestationStatsSchema, "Statistics"), ...errorResponses(400, 404) },
});

const getRoute = createRoute({
  method: "get",
  path: "/{id}",
  tags: ["attestations"],
  request: { params: idParam },
  responses: { 200: json(attestationDetail, "Attestation"), ...errorResponses(400, 404) },
});

export const attestationRoutes = router()
  .openapi(createRouteDef, async (c) => {
    const payment = c.get("payment");
    const body = c.req.valid("json");
    const row = await createAttestation(c.get("deps"), { ...body, payer: payment.payer, paymentNonce: payment.nonce });
    return c.json({ attestation: toAttestationView(row) }, 201);
  })
  .openapi(statsRoute, async (c) => c.json(await attestationStats(c.get("deps"), c.req.valid("param")), 200))
  .openapi(listRoute, async (c) => c.json(await listAttestations(c.get("deps"), c.req.valid("param")), 200))
  .openapi(getRoute, async (c) => c.json(await getAttestation(c.get("deps"), c.req.valid("param")), 200));

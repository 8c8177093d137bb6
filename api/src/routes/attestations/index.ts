// Attestations: paid peer reviews (spec §4). The x-payment payer speaks for the attestor agent: it must be the
// attestor's wallet or the current owner of its identity token. A rule broken answers with its own 4xx code and
// the payment is given back (requirePayment releases it when the handler answers >= 400).
import { createRoute, z } from "@hono/zod-openapi";
import type { Deps } from "../../context.ts";
import { ATTESTATION_CATEGORIES, attestationWeight } from "../../domain/reputation.ts";
import { recomputeAgent, recomputeSoon } from "../../domain/reputation-store.ts";
import { ApiError, errors } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { agentControllers } from "../../lib/deposit-tx.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { paidRouteDocs, requirePayment } from "../../payments/index.ts";
import { onUnpaid } from "../../payments/unpaid.ts";

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
  path: CREATE_PATH,
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
  path: "/api/attestations/agent/{agentId}",
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
  path: "/api/attestations/agent/{agentId}/stats",
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
  path: "/api/attestations/{id}",
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

interface Row {
  id: string;
  attestor_id: string;
  subject_id: string;
  category: (typeof ATTESTATION_CATEGORIES)[number];
  rating: number;
  comment: string | null;
  weight: number;
  attestor_score: number;
  created_at: Date;
}
const COLUMNS = `t.id::text, t.attestor_id::text, t.subject_id::text, t.category, t.rating, t.comment, t.weight,
  t.attestor_score, t.created_at`;

const view = (r: Row) => ({
  id: Number(r.id),
  attestorId: Number(r.attestor_id),
  subjectId: Number(r.subject_id),
  category: r.category,
  rating: r.rating,
  comment: r.comment,
  weight: r.weight,
  createdAt: r.created_at.toISOString(),
});

async function agentInfo(deps: Deps, agent: number) {
  const r = await deps.pool.query<{ wallet: string; owner: string; walletBound: boolean; score: number | null }>(
    `select a.wallet, a.owner, a.wallet_bound "walletBound", r.score from ${deps.env.INDEXER_SCHEMA}.agent a
       left join api.reputation r on r.agent_id = a.id where a.id = $1`,
    [agent],
  );
  return r.rows[0];
}

async function assertAgent(deps: Deps, agent: number) {
  const r = await deps.pool.query(`select 1 from ${deps.env.INDEXER_SCHEMA}.agent where id = $1`, [agent]);
  if (!r.rowCount) throw errors.agentNotFound(agent);
}

// An attestation whose x402 payment never settles is deleted (and its subject recomputed): attestations are paid.
onUnpaid(CREATE_PATH, async (deps, { payer, nonce }) => {
  const { rows } = await deps.pool.query<{ subject_id: string }>(
    "delete from api.attestation where payer = $1 and payment_nonce = $2 returning subject_id::text",
    [payer, nonce],
  );
  if (rows.length)
    await recomputeSoon(
      deps,
      rows.map((r) => Number(r.subject_id)),
      "attestation",
    );
});

/** The attestation this payment already bought (a retried request, e.g. after 504 PAYMENT_PENDING). */
async function boughtWith(deps: Deps, payer: string, nonce: string): Promise<Row | undefined> {
  const { rows } = await deps.pool.query<Row>(
    `select ${COLUMNS} from api.attestation t where t.payer = $1 and t.payment_nonce = $2`,
    [payer, nonce],
  );
  return rows[0];
}

export const attestationRoutes = router()
  .openapi(createRouteDef, async (c) => {
    const deps = c.get("deps");
    const payment = c.get("payment");
    const body = c.req.valid("json");
    const bought = await boughtWith(deps, payment.payer, payment.nonce);
    if (bought) {
      const same =
        Number(bought.attestor_id) === body.attestorId &&
        Number(bought.subject_id) === body.subjectId &&
        bought.category === body.category;
      if (same) return c.json({ attestation: view(bought) }, 201);
    }
    if (!(ATTESTATION_CATEGORIES as readonly string[]).includes(body.category)) {
      throw new ApiError(400, "INVALID_CATEGORY", `category must be one of ${ATTESTATION_CATEGORIES.join(", ")}`);
    }
    if (!Number.isInteger(body.rating) || body.rating < 1 || body.rating > 5) {
      throw new ApiError(400, "INVALID_RATING", "rating must be an integer from 1 to 5");
    }
    if (body.attestorId === body.subjectId) {
      throw new ApiError(400, "SELF_ATTESTATION", "an agent cannot attest itself");
    }
    const [attestor, subject] = await Promise.all([agentInfo(deps, body.attestorId), agentInfo(deps, body.subjectId)]);
    if (!attestor) throw new ApiError(404, "AGENT_NOT_FOUND", `attestor agent ${body.attestorId} does not exist`);
    if (!subject) throw new ApiError(404, "AGENT_NOT_FOUND", `subject agent ${body.subjectId} does not exist`);
    const speaksFor = agentControllers(attestor).map((a) => a.toLowerCase());
    if (!speaksFor.includes(payment.payer.toLowerCase())) {
      throw new ApiError(
        403,
        "ATTESTOR_NOT_AUTHORIZED",
        `the payer ${payment.payer} is neither the wallet nor the owner of attestor agent ${body.attestorId}`,
      );
    }
    const subjectControllers = new Set([subject.wallet, subject.owner].map((a) => a.toLowerCase()));
    // Same party: any address that ever controlled both (an unbound wallet's key is still held by someone).
    if ([attestor.wallet, attestor.owner].some((a) => subjectControllers.has(a.toLowerCase()))) {
      throw new ApiError(
        400,
        "SAME_OWNER_ATTESTATION",
        "attestor and subject are controlled by the same wallet; attestations must come from another party",
      );
    }
    // The weight comes from the attestor's reputation now (computed first if it never was).
    const attestorScore = attestor.score ?? (await recomputeAgent(deps, body.attestorId, "read"))?.score ?? 50;
    const weight = attestationWeight(attestorScore);
    const now = await chainClock(deps).now();
    let row: Row;
    try {
      const r = await deps.pool.query<Row>(
        `insert into api.attestation as t
           (attestor_id, subject_id, category, rating, comment, weight, attestor_score, payer, payment_nonce, created_at)
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::timestamptz)
         returning ${COLUMNS}`,
        [
          body.attestorId,
          body.subjectId,
          body.category,
          body.rating,
          body.comment ?? null,
          weight,
          attestorScore,
          payment.payer,
          payment.nonce,
          new Date(Number(now) * 1000).toISOString(),
        ],
      );
      row = r.rows[0]!;
    } catch (err) {
      if ((err as { code?: string }).code === "23505") {
        throw new ApiError(
          409,
          "ATTESTATION_EXISTS",
          `agent ${body.attestorId} already attested agent ${body.subjectId} for ${body.category}`,
        );
      }
      throw err;
    }
    await recomputeSoon(deps, [body.subjectId], "attestation");
    return c.json({ attestation: view(row) }, 201);
  })
  .openapi(statsRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId: aid } = c.req.valid("param");
    await assertAgent(deps, aid);
    const { rows } = await deps.pool.query<{
      category: string | null;
      n: number;
      avg: number | null;
      wsum: number | null;
      w: number | null;
    }>(
      `select category, count(*)::int n, avg(rating)::float8 avg, sum(rating * weight)::float8 wsum,
              sum(weight)::float8 w
         from api.attestation where subject_id = $1 group by rollup (category)`,
      [aid],
    );
    const given = await deps.pool.query<{ n: number }>(
      "select count(*)::int n from api.attestation where attestor_id = $1",
      [aid],
    );
    const r2 = (v: number) => Math.round(v * 10_000) / 10_000;
    const stat = (r: (typeof rows)[number] | undefined) => ({
      count: r?.n ?? 0,
      averageRating: r?.avg ? r2(r.avg) : 0,
      weightedScore: r?.w ? r2((r.wsum ?? 0) / r.w) : 0,
      totalWeight: r?.w ? r2(r.w) : 0,
    });
    const total = stat(rows.find((r) => r.category === null));
    return c.json(
      {
        agentId: aid,
        count: total.count,
        averageRating: total.averageRating,
        attestationScore: total.weightedScore,
        totalWeight: total.totalWeight,
        givenCount: given.rows[0]!.n,
        categories: Object.fromEntries(
          ATTESTATION_CATEGORIES.map((cat) => [cat, stat(rows.find((r) => r.category === cat))]),
        ) as Record<(typeof ATTESTATION_CATEGORIES)[number], ReturnType<typeof stat>>,
      },
      200,
    );
  })
  .openapi(listRoute, async (c) => {
    const deps = c.get("deps");
    const { agentId: aid } = c.req.valid("param");
    await assertAgent(deps, aid);
    const s = deps.env.INDEXER_SCHEMA;
    const [received, given] = await Promise.all([
      deps.pool.query<Row & { wallet: string; score: number | null }>(
        `select ${COLUMNS}, a.wallet, r.score from api.attestation t
           join ${s}.agent a on a.id = t.attestor_id
           left join api.reputation r on r.agent_id = t.attestor_id
          where t.subject_id = $1 order by t.id desc limit 500`,
        [aid],
      ),
      deps.pool.query<Row & { wallet: string }>(
        `select ${COLUMNS}, a.wallet from api.attestation t
           join ${s}.agent a on a.id = t.subject_id
          where t.attestor_id = $1 order by t.id desc limit 500`,
        [aid],
      ),
    ]);
    return c.json(
      {
        agentId: aid,
        received: received.rows.map((r) => ({
          ...view(r),
          attestor: { id: Number(r.attestor_id), walletAddress: r.wallet, reputation: r.score ?? 50 },
        })),
        given: given.rows.map((r) => ({ ...view(r), subject: { id: Number(r.subject_id), walletAddress: r.wallet } })),
      },
      200,
    );
  })
  .openapi(getRoute, async (c) => {
    const deps = c.get("deps");
    const { id: attestationId } = c.req.valid("param");
    const s = deps.env.INDEXER_SCHEMA;
    const { rows } = await deps.pool.query<
      Row & { attestor_wallet: string; subject_wallet: string; attestor_current: number | null }
    >(
      `select ${COLUMNS}, aa.wallet attestor_wallet, sa.wallet subject_wallet, r.score attestor_current
         from api.attestation t
         join ${s}.agent aa on aa.id = t.attestor_id
         join ${s}.agent sa on sa.id = t.subject_id
         left join api.reputation r on r.agent_id = t.attestor_id
        where t.id = $1`,
      [attestationId],
    );
    const r = rows[0];
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

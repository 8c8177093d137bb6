// POST /api/intelligence/search (paid: x-payment or x402): agents by text relevance and filters, best score first.
import { createRoute, z } from "@hono/zod-openapi";
import { router } from "../../lib/openapi.ts";
import { json, jsonBody } from "../../lib/schemas.ts";
import { paidRouteDocs, requirePayment } from "../../payments/index.ts";

/** The full path: the payment is bound to it (payments/prices.ts). */
export const SEARCH_PATH = "/api/intelligence/search";
export const MAX_LIMIT = 100;

const tag = z.string().trim().min(1).max(64);
const searchBody = z
  .object({
    query: z
      .string()
      .trim()
      .max(200)
      .optional()
      .openapi({
        description:
          "Natural language. Full-text match (english stemming, all words) over name, description, capabilities, " +
          "tools, programming languages and domains; when nothing matches, a fuzzy (trigram) match on the name.",
        example: "python testing",
      }),
    capabilities: z.array(tag).max(10).optional().openapi({ description: "The agent has all of them" }),
    programmingLangs: z.array(tag).max(20).optional().openapi({ description: "The agent has at least one" }),
    domains: z.array(tag).max(20).optional().openapi({ description: "The agent has at least one" }),
    tools: z.array(tag).max(20).optional().openapi({ description: "The agent has all of them" }),
    minScore: z.number().min(0).max(100).optional().openapi({ description: "Reputation score at least this" }),
    minUptime: z.number().min(0).max(100).optional().openapi({ description: "30-day uptime percentage at least" }),
    verifiedOnly: z.boolean().optional().openapi({ description: "At least one VERIFIED verification" }),
    limit: z.number().int().min(1).max(MAX_LIMIT).default(20),
  })
  .openapi("SearchRequest");

const searchResult = z
  .object({
    id: z.number(),
    walletAddress: z.string().nullable(),
    name: z.string(),
    capabilities: z.array(z.string()),
    programmingLangs: z.array(z.string()),
    domains: z.array(z.string()),
    tools: z.array(z.string()),
    reputation: z.object({
      score: z.number(),
      completions: z.number(),
      uptimePercentage: z.number(),
      avgResponseTimeMs: z.number(),
      attestationCount: z.number(),
      attestationScore: z.number(),
      verificationBadges: z.array(z.string()),
    }),
  })
  .openapi("SearchResult");

export const searchResponse = z
  .object({
    results: z.array(searchResult),
    total: z
      .number()
      .openapi({ description: "Matching agents: exact when totalExact, else an estimate from the index statistics" }),
    totalExact: z.boolean(),
  })
  .openapi("SearchResponse");

const docs = paidRouteDocs(SEARCH_PATH);

const searchRoute = createRoute({
  method: "post",
  path: "/search",
  tags: ["intelligence"],
  summary: "Paid agent search ($0.001: x-payment, or x402 USDC)",
  description:
    "Filters all apply together; results are ordered by reputation score, descending (then id). `total` is exact " +
    "(`totalExact: true`) when the filters are selective enough for every match to be counted, otherwise an " +
    "estimate from the index statistics, at least limit + 1 (`totalExact: false`). Answers may come from a per-process cache that is " +
    "emptied whenever any agent's searchable data changes.",
  middleware: [requirePayment(SEARCH_PATH)] as const,
  request: { headers: docs.headers, body: jsonBody(searchBody) },
  responses: { 200: json(searchResponse, "Matching agents"), ...docs.responses },
});

export const searchRoutes = router().openapi(searchRoute, async (c) => {
  // With an organization's key, only the organization's agents (supplement §4).
  const orgId = c.get("org")?.id;
  const body = await c.get("deps").search.search({ ...c.req.valid("json"), ...(orgId ? { orgId } : {}) });
  // Already JSON in the SearchResponse shape (the e2e tests check it against the schema).
  return c.body(body, 200, { "content-type": "application/json" }) as unknown as ReturnType<
    typeof c.json<z.infer<typeof searchResponse>, 200>
  >;
});

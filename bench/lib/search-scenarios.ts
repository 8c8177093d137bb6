// The scenarios bench/search.ts measures (and bench/search-profile.ts samples): request bodies drawn at random
// from the seeded vocabulary of bench/seed-agents.sql.
const pick = <T>(a: readonly T[]) => a[Math.floor(Math.random() * a.length)]!;
const COMMON_WORDS = ["python", "coding", "research", "finance", "docker", "typescript", "git", "writing"];
const CAPS = ["coding", "research", "writing", "data-analysis", "testing", "code-review", "translation", "design"];
const LANGS = ["python", "typescript", "javascript", "rust", "go", "java", "solidity"];
const DOMAINS = ["finance", "defi", "healthcare", "gaming", "legal", "education"];

export interface Scenario {
  name: string;
  description: string;
  method: "GET" | "POST";
  path: string;
  body?: () => unknown;
  paid?: string; // endpoint the payments are signed for
}

export const SEARCH = "/api/intelligence/search";
export const scenarios: Scenario[] = [
  {
    name: "static JSON, unpaid (baseline)",
    description: "GET /bench/static on the same Hono app",
    method: "GET",
    path: "/bench/static",
  },
  {
    name: "payment only",
    description: "POST /bench/paid: requirePayment + empty handler (signature recovery + replay insert)",
    method: "POST",
    path: "/bench/paid",
    body: () => ({}),
    paid: "/bench/paid",
  },
  {
    name: "search: rare term",
    description: 'query "kw<0-19999>" (~50 matching agents each)',
    method: "POST",
    path: SEARCH,
    body: () => ({ query: `kw${Math.floor(Math.random() * 20000)}` }),
    paid: SEARCH,
  },
  {
    name: "search: common term",
    description: `query one of ${COMMON_WORDS.join(", ")} (9-49% of agents)`,
    method: "POST",
    path: SEARCH,
    body: () => ({ query: pick(COMMON_WORDS) }),
    paid: SEARCH,
  },
  {
    name: "search: filters only",
    description: "capabilities [1 of 8], programmingLangs [2 of 7], minScore 0-80",
    method: "POST",
    path: SEARCH,
    body: () => ({
      capabilities: [pick(CAPS)],
      programmingLangs: [pick(LANGS), pick(LANGS)],
      minScore: Math.floor(Math.random() * 80),
    }),
    paid: SEARCH,
  },
  {
    name: "search: combined",
    description: "common word + capabilities + domains + minUptime 90 + verifiedOnly (half of the requests)",
    method: "POST",
    path: SEARCH,
    body: () => ({
      query: pick(COMMON_WORDS),
      capabilities: [pick(CAPS)],
      domains: [pick(DOMAINS)],
      minUptime: 90,
      verifiedOnly: Math.random() < 0.5,
      limit: 20,
    }),
    paid: SEARCH,
  },
];

/** The search scenarios alone. */
export const searchScenarios = scenarios.filter((s) => s.path === SEARCH);

// Paired A/B of the database time of uncached searches, for a machine too noisy for req/s to resolve 10-20%: for
// BENCH_SAMPLES random bodies of one scenario it runs the API's passes (runSearchPasses, the API's own choice: the walk, then the GIN
// pass when the walk falls short; force_generic_plan like the search pool) twice on one connection, once as built ("A") and
// once with the statement text rewritten by the regular expression AB_FROM -> AB_TO ("B", e.g. calls to an old copy
// of a function that AB_SETUP creates), alternating which goes first. Reports both time distributions and whether
// every page and every pass choice came out the same. Needs a cluster seeded by bench/search.ts:
//   BENCH_DATA_DIR=/path AB_SETUP='create schema ...' AB_FROM='api\.f\(' AB_TO='scratch.f(' \
//     pnpm exec tsx bench/search-ab.ts [scenario=combined]
import type { SearchFilters } from "../api/src/stores/search/query.ts";
import { openSearchCluster } from "./lib/search-cluster.ts";

const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 400);
if (!process.env.AB_FROM || process.env.AB_TO === undefined) throw new Error("AB_FROM, AB_TO");
const from = new RegExp(process.env.AB_FROM, "g");
const to = process.env.AB_TO;
const { client, scenario, body, searchAsTheApi, close } = await openSearchCluster(process.argv[2] ?? "combined");

type Variant = "A" | "B";
async function search(f: SearchFilters, variant: Variant): Promise<{ ms: number; page: string; passes: string }> {
  const t = performance.now();
  const { page, passes } = await searchAsTheApi(f, async (q) => {
    const text = variant === "A" ? q.text : q.text.replace(from, to);
    return (await client.query({ name: `${variant}_${q.name}`, text, values: q.values })).rows[0];
  });
  return { ms: performance.now() - t, page: page.resultsJson, passes: passes.join("+") };
}

const stats = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const at = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))]!.toFixed(2);
  return `mean ${(xs.reduce((a, b) => a + b, 0) / xs.length).toFixed(2)} p50 ${at(0.5)} p95 ${at(0.95)} max ${at(1)} ms`;
};

try {
  if (process.env.AB_SETUP) await client.query(process.env.AB_SETUP);
  for (let i = 0; i < 20; i++) {
    const f = body();
    await search(f, "A");
    await search(f, "B");
  }
  const ms: Record<Variant, number[]> = { A: [], B: [] };
  let samePage = 0;
  let samePasses = 0;
  for (let i = 0; i < SAMPLES; i++) {
    const f = body();
    const out = {} as Record<Variant, Awaited<ReturnType<typeof search>>>;
    for (const v of i % 2 ? (["A", "B"] as const) : (["B", "A"] as const)) out[v] = await search(f, v);
    ms.A.push(out.A.ms);
    ms.B.push(out.B.ms);
    if (out.A.page === out.B.page) samePage++;
    if (out.A.passes === out.B.passes) samePasses++;
  }
  console.log(`scenario "${scenario.name}", ${SAMPLES} bodies, database time per search`);
  console.log(`A (as built): ${stats(ms.A)}\nB (rewritten): ${stats(ms.B)}`);
  console.log(`same page ${samePage}/${SAMPLES}, same passes ${samePasses}/${SAMPLES}`);
} finally {
  await close();
}

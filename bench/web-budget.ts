// Benchmark: the web app's budgets (issue 25). Builds the app (when stale), measures each explorer page's first-load
// JavaScript from the Vite manifest (gzip), then on a fresh local stack with a few agents and runs (made through the
// SDK, scripts/lib/demo-data.ts) drives headless Chromium (launchChromium) N times:
// - LCP: largest contentful paint of a cold load (new browser context: empty cache) of / and of an agent's page.
// - Agent page interactive after navigation: from the directory (app loaded, cold cache for the agent page's chunk),
//   a click on an agent's link until its page shows the agent (name and trust section) and the next frame ran.
// Prints and writes bench/results/web.md (p50 / p95 / max).
//
//   pnpm exec tsx bench/web-budget.ts [N=15]

import { seedDemoData } from "../scripts/lib/demo-data.ts";
import { explorerFirstLoads, FIRST_LOAD_BUDGET_BYTES, kib } from "../scripts/lib/web-budget.ts";
import { ensureWebBuild, webDistDir } from "../scripts/lib/web-build.ts";
import { launchChromium } from "../test/support/browser.ts";
import { machineLine, percentile as pct, writeResults } from "./lib/results.ts";
import { startBenchStack } from "./lib/stack.ts";

const N = Number(process.argv[2] ?? 15);
const LCP_TARGET_MS = 1_500;
const INTERACTIVE_TARGET_MS = 1_000;

ensureWebBuild();
const loads = explorerFirstLoads(webDistDir);
for (const l of loads) console.log(`first load ${l.path}: ${kib(l.gzipBytes)} gzip (${kib(l.rawBytes)} raw)`);

process.env.ENV_FILE = "";
const bench = await startBenchStack("web", { LOG_LEVEL: "warn", TRUST_PROXY: "1", RATE_LIMIT_MULTIPLIER: "1000000" });

try {
  const demo = await seedDemoData(bench.stack.apiUrl, bench.stack.rpcUrl);
  const origin = new URL(bench.stack.apiUrl).origin;
  const agentId = demo.agentIds[0]!;
  const agentName = (await (await fetch(`${origin}/api/agents/${agentId}`)).json()).name as string;
  const browser = await launchChromium();
  let ip = 0;
  const newContext = () =>
    browser.newContext({
      baseURL: origin,
      viewport: { width: 1280, height: 800 },
      extraHTTPHeaders: { "x-forwarded-for": `198.51.100.${(ip++ % 250) + 1}` },
    });

  /** LCP of a cold load of `path` (ms from navigation start), once `ready` shows (the page's data is in). */
  async function coldLcp(path: string, ready: string): Promise<number> {
    const context = await newContext();
    await context.addInitScript(() => {
      const w = window as unknown as { __lcp: number };
      w.__lcp = 0;
      new PerformanceObserver((list) => {
        for (const entry of list.getEntries()) w.__lcp = Math.max(w.__lcp, entry.startTime);
      }).observe({ type: "largest-contentful-paint", buffered: true });
    });
    const page = await context.newPage();
    await page.goto(path);
    await page.locator(ready).first().waitFor();
    // Two frames after the content: the last candidate is reported.
    const lcp = await page.evaluate(
      () =>
        new Promise<number>((resolve) =>
          requestAnimationFrame(() =>
            requestAnimationFrame(() => resolve((window as unknown as { __lcp: number }).__lcp)),
          ),
        ),
    );
    await context.close();
    return lcp;
  }

  /** From the directory, a click on the agent's link until its page shows the agent and the next frame ran. */
  async function agentInteractive(): Promise<number> {
    const context = await newContext();
    const page = await context.newPage();
    await page.goto("/agents");
    const link = page.getByRole("link", { name: agentName, exact: true });
    await link.waitFor();
    const ms = await link.evaluate(
      (a, name) =>
        new Promise<number>((resolve) => {
          // No named function in here: tsx's transform would wrap it in a helper the page does not have.
          const started = performance.now();
          const observer = new MutationObserver(() => {
            if (document.querySelector("h1")?.textContent !== name || document.querySelector("#trust") === null) return;
            observer.disconnect();
            requestAnimationFrame(() => setTimeout(() => resolve(performance.now() - started), 0));
          });
          observer.observe(document.body, { subtree: true, childList: true, characterData: true });
          (a as HTMLAnchorElement).click();
        }),
      agentName,
    );
    await context.close();
    return ms;
  }

  // One warm-up of each (Chromium's own start-up, the API's first queries), not counted.
  await coldLcp("/", "text=What is running here");
  await agentInteractive();
  const lcpHome: number[] = [];
  const lcpAgent: number[] = [];
  const interactive: number[] = [];
  for (let i = 0; i < N; i++) {
    lcpHome.push(await coldLcp("/", "text=What is running here"));
    lcpAgent.push(await coldLcp(`/agents/${agentId}`, "#trust"));
    interactive.push(await agentInteractive());
  }
  await browser.close();

  const row = (what: string, xs: number[], target: number) =>
    `| ${what} | ${xs.length} | ${Math.round(pct(xs, 50))} | ${Math.round(pct(xs, 95))} | ${Math.round(Math.max(...xs))} | < ${target} | ${pct(xs, 95) < target ? "yes" : "**no**"} |`;
  const worst = Math.max(...loads.map((l) => l.gzipBytes));
  const generated = `
\`pnpm exec tsx bench/web-budget.ts ${N}\`, ${new Date().toISOString().slice(0, 16)}Z, ${machineLine()} at the end (other work shares the machine).

### First-load JavaScript of the explorer (gzip, budget ${kib(FIRST_LOAD_BUDGET_BYTES)})
The entry chunk, the page's chunk and their static imports, from \`web/dist/.vite/manifest.json\` (gzip level 9);
on-demand chunks (wallet, paying client, charts) excluded. Held by \`scripts/lib/web-budget.test.ts\`.

| page | files | gzip | raw |
|---|---:|---:|---:|
${loads.map((l) => `| \`${l.path}\` | ${l.files.length} | ${kib(l.gzipBytes)} | ${kib(l.rawBytes)} |`).join("\n")}

Largest: ${kib(worst)} of ${kib(FIRST_LOAD_BUDGET_BYTES)} (${worst <= FIRST_LOAD_BUDGET_BYTES ? "within" : "**over**"} budget).

### Timings on the local stack (headless Chromium, 1280×800, API on loopback, no network throttling)
LCP: largest contentful paint of a cold load (new browser context, empty cache), read after the page's data showed.
Agent page interactive: from the loaded directory, a click on an agent's link until its page shows the agent's name
and trust section and the next frame ran (its chunk not cached, its three API reads included).

| measure | runs | p50 ms | p95 ms | max ms | target (p95) | met |
|---|---:|---:|---:|---:|---:|---|
${row("LCP, home `/` (cold)", lcpHome, LCP_TARGET_MS)}
${row("LCP, agent page (cold)", lcpAgent, LCP_TARGET_MS)}
${row("agent page interactive after navigation", interactive, INTERACTIVE_TARGET_MS)}
`;
  console.log(generated);
  console.log(`wrote ${writeResults("web", "Web app budgets", generated)}`);
} finally {
  await bench.stop();
}

// `npm run screenshots`: every page of the web app (as a visitor without a wallet sees it) at desktop and phone widths, as PNGs in docs/screenshots/
// (<page>-desktop.png, <page>-phone.png). Starts its own local stack on free ports (scripts/lib/stack.ts, as the
// end-to-end runner does), builds the app when stale, fills it with a few agents and runs made through the SDK
// (scripts/lib/demo-data.ts), photographs each page in headless Chromium once its content shows, and stops the stack.
// The README shows a few of them; the others are ignored by git (.gitignore), so a run leaves the committed ones
// changed only where a page changed.
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "../test/support/browser.ts";
import { repoRoot } from "./lib/chain.ts";
import { seedDemoData } from "./lib/demo-data.ts";
import { startStack } from "./lib/stack.ts";
import { ensureWebBuild } from "./lib/web-build.ts";

const OUT = join(repoRoot, "docs", "screenshots");
const WIDTHS = [
  { name: "desktop", viewport: { width: 1280, height: 800 } },
  { name: "phone", viewport: { width: 390, height: 844 } },
] as const;

process.env.ENV_FILE = "";
ensureWebBuild();
const dataDir = mkdtempSync(join(tmpdir(), "agenthub-screenshots-"));
const stack = await startStack({
  dataDir,
  quiet: true,
  log: (msg) => console.log(`[stack] ${msg}`),
  // One browser and the seeding share this machine's address: a throwaway stack, limits scaled up.
  apiEnv: { LOG_LEVEL: "warn", RATE_LIMIT_MULTIPLIER: "100" },
});
try {
  console.log("seeding agents and runs through the SDK…");
  const demo = await seedDemoData(stack.apiUrl, stack.rpcUrl);
  /** Each page and what shows once its data is in (the photo waits for it). */
  const pages = [
    { name: "home", path: "/", ready: "text=What is running here" },
    { name: "agents", path: "/agents", ready: "ul.grid li.card" },
    { name: "agent", path: `/agents/${demo.agentIds[0]}`, ready: "#trust" },
    { name: "leaderboard", path: "/leaderboard", ready: "table tbody tr" },
    { name: "stats", path: "/stats", ready: "text=Capabilities" },
    { name: "runs", path: "/runs", ready: "table tbody tr" },
    { name: "run", path: `/runs/${demo.completedRunId}`, ready: "ol.timeline li" },
    { name: "activity", path: "/activity", ready: "ol.feed li" },
    { name: "register", path: "/register", ready: "text=Register an agent" },
    { name: "post", path: "/post", ready: "text=Post a run" },
    { name: "console", path: `/console/${demo.agentIds[0]}`, ready: "h1" },
  ];
  mkdirSync(OUT, { recursive: true });
  const browser = await launchChromium();
  try {
    for (const { name: width, viewport } of WIDTHS) {
      const context = await browser.newContext({ baseURL: new URL(stack.apiUrl).origin, viewport });
      for (const { name, path, ready } of pages) {
        const page = await context.newPage();
        const errors: string[] = [];
        page.on("pageerror", (e) => errors.push(e.stack ?? e.message));
        page.on("console", (m) => {
          if (m.type() === "error") errors.push(m.text());
        });
        await page.goto(path);
        await page.locator(ready).first().waitFor({ timeout: 30_000 });
        // Fonts, charts and images settled: the network is idle and a frame has been drawn.
        await page.waitForLoadState("networkidle");
        // A page that broke is not a picture of it.
        if (errors.length > 0) throw new Error(`${path} at ${width} width: ${errors.join("\n")}`);
        const file = join(OUT, `${name}-${width}.png`);
        await page.screenshot({ path: file, fullPage: true });
        console.log(`wrote ${file}`);
        await page.close();
      }
      await context.close();
    }
  } finally {
    await browser.close();
  }
} finally {
  await stack.stop();
  rmSync(dataDir, { recursive: true, force: true });
}

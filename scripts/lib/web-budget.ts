// What a browser downloads before an explorer page can render: the app's entry chunk, the page's own chunk and every
// chunk they import statically (transitively), read from the build's Vite manifest (web/dist/.vite/manifest.json)
// and measured gzip-compressed. Chunks loaded on demand (the wallet, the paying client, charts) are not counted.
// bench/web-budget.ts reports it and scripts/lib/web-budget.test.ts holds it to the budget.
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";

/** Issue 25: first-load JavaScript of the explorer, gzip. */
export const FIRST_LOAD_BUDGET_BYTES = 200 * 1024;

/** The explorer's pages (no wallet needed): URL pattern and the source of the route's lazy component. */
export const EXPLORER_PAGES = [
  { path: "/", source: "src/pages/Home.tsx" },
  { path: "/agents", source: "src/pages/Agents.tsx" },
  { path: "/agents/$agentId", source: "src/pages/Agent.tsx" },
  { path: "/leaderboard", source: "src/pages/Leaderboard.tsx" },
  { path: "/stats", source: "src/pages/Stats.tsx" },
  { path: "/runs", source: "src/pages/Runs.tsx" },
  { path: "/runs/$runId", source: "src/pages/Run.tsx" },
  { path: "/activity", source: "src/pages/Activity.tsx" },
] as const;

/** Modules that sign or talk to wallets: loaded on demand, never part of an explorer page's first load. */
export const ON_DEMAND_SOURCES = ["src/hub.ts", "src/wallet/connect.ts"] as const;

interface ManifestChunk {
  file: string;
  name?: string;
  isEntry?: boolean;
  imports?: string[];
  dynamicImports?: string[];
}
type Manifest = Record<string, ManifestChunk>;

export interface FirstLoad {
  path: string;
  /** Built files (under dist/), entry first. */
  files: string[];
  gzipBytes: number;
  rawBytes: number;
}

export function readManifest(distDir: string): Manifest {
  return JSON.parse(readFileSync(join(distDir, ".vite", "manifest.json"), "utf8")) as Manifest;
}

/** Manifest keys of `keys` and everything they import statically. */
function staticClosure(manifest: Manifest, keys: string[]): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) return;
    const chunk = manifest[key];
    if (!chunk) throw new Error(`the Vite manifest has no chunk ${key}: rebuild the web app`);
    seen.add(key);
    for (const next of chunk.imports ?? []) visit(next);
  };
  for (const key of keys) visit(key);
  return [...seen];
}

function entryKey(manifest: Manifest): string {
  const entries = Object.entries(manifest).filter(([, c]) => c.isEntry);
  if (entries.length !== 1) throw new Error(`expected one entry in the Vite manifest, found ${entries.length}`);
  return entries[0]![0];
}

/** The first load of each explorer page: the entry, the page's chunk and their static imports. */
export function explorerFirstLoads(distDir: string): FirstLoad[] {
  const manifest = readManifest(distDir);
  const entry = entryKey(manifest);
  return EXPLORER_PAGES.map(({ path, source }) => {
    const files = staticClosure(manifest, [entry, source])
      .map((key) => manifest[key]!.file)
      .filter((file) => file.endsWith(".js"));
    let gzipBytes = 0;
    let rawBytes = 0;
    for (const file of files) {
      const body = readFileSync(join(distDir, file));
      rawBytes += body.length;
      gzipBytes += gzipSync(body, { level: 9 }).length;
    }
    return { path, files, gzipBytes, rawBytes };
  });
}

/**
 * Built files of the on-demand modules. A module imported only dynamically is keyed by its source; one that some page
 * imports statically becomes a shared chunk keyed "_<name>-<hash>.js", found by its name.
 */
export function onDemandFiles(distDir: string): string[] {
  const manifest = readManifest(distDir);
  return ON_DEMAND_SOURCES.map((source) => {
    const name = source.replace(/^.*\//, "").replace(/\.tsx?$/, "");
    const chunk =
      manifest[source] ?? Object.entries(manifest).find(([k, c]) => k.startsWith("_") && c.name === name)?.[1];
    if (!chunk) throw new Error(`the Vite manifest has no chunk of ${source}`);
    return chunk.file;
  });
}

export const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;

// Makes sure web/dist holds a build of today's web app sources (and the SDK it bundles), building only when it does
// not: `npm start` and the end-to-end runner serve the app at / from there. Costs a few ms of hashing when current.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import { repoRoot } from "./chain.ts";

const webDir = join(repoRoot, "web");
export const webDistDir = join(webDir, "dist");
const stampFile = join(webDistDir, ".sources.sha256");

function* sourceFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir).sort()) {
    if (entry === "node_modules" || entry === "dist" || entry === "generated") continue;
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* sourceFiles(path);
    else yield path;
  }
}

/** The app's sources, its build config and lockfile-pinned dependencies, the SDK's sources and the protocol it re-exports. */
export function webSourcesFingerprint(): string {
  const hash = createHash("sha256");
  const inputs = [
    ...sourceFiles(join(webDir, "src")),
    ...sourceFiles(join(repoRoot, "sdk", "src")),
    ...sourceFiles(join(repoRoot, "common", "src", "protocol")),
    join(webDir, "index.html"),
    join(webDir, "vite.config.ts"),
    join(webDir, "package.json"),
    join(repoRoot, "pnpm-lock.yaml"),
  ];
  for (const file of inputs) hash.update(relative(repoRoot, file)).update("\0").update(readFileSync(file));
  return hash.digest("hex");
}

export function webBuildIsCurrent(fingerprint = webSourcesFingerprint()): boolean {
  return (
    existsSync(join(webDistDir, "index.html")) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8").trim() === fingerprint
  );
}

/** Builds the app when its build is missing or stale; returns whether it built. */
export function ensureWebBuild(log: (msg: string) => void = console.log): boolean {
  const fingerprint = webSourcesFingerprint();
  if (webBuildIsCurrent(fingerprint)) return false;
  log("web        building the web app (Vite, ~10 s)…");
  const started = Date.now();
  const res = spawnSync(join(webDir, "node_modules", ".bin", "vite"), ["build", "--logLevel", "warn"], {
    cwd: webDir,
    stdio: ["ignore", "inherit", "inherit"],
  });
  if (res.status !== 0)
    throw new Error(`the web app build failed (exit ${res.status}): pnpm --filter @agenthub/web build`);
  writeFileSync(stampFile, `${fingerprint}\n`);
  log(`web        built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

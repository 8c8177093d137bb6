#!/usr/bin/env node
// The `agenthub` command: runs the bundled CLI (dist/agenthub.mjs, Node >= 20). Installed from the package, that is
// all there is. In this repository (`npx agenthub …` from a checkout), the bundle is built first when missing or
// older than the sources it bundles (cli/, sdk/, common/), so the command always runs the code it sits beside.
import { existsSync, readdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const pkg = join(dirname(fileURLToPath(import.meta.url)), "..");
const bundle = join(pkg, "dist", "agenthub.mjs");

/** Newest modification time of the TypeScript sources under `dir` (0 when there are none). */
function newestSource(dir) {
  if (!existsSync(dir)) return 0;
  let newest = 0;
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith(".ts")) continue;
    newest = Math.max(newest, statSync(join(entry.parentPath, entry.name)).mtimeMs);
  }
  return newest;
}

const checkout = existsSync(join(pkg, "src", "main.ts"));
if (checkout) {
  const sources = Math.max(...["cli/src", "sdk/src", "common/src"].map((d) => newestSource(join(pkg, "..", d))));
  if (!existsSync(bundle) || statSync(bundle).mtimeMs < sources) {
    const { bundleCli } = await import(pathToFileURL(join(pkg, "bundle.mjs")).href);
    await bundleCli(bundle);
  }
}
// A reader that closes early (`agenthub --help | head`) ends the command quietly, as Unix tools do.
process.stdout.on("error", (error) => {
  if (error.code !== "EPIPE") throw error;
  process.exit(process.exitCode ?? 0);
});
const { main } = await import(pathToFileURL(bundle).href);
process.exitCode = await main(process.argv);

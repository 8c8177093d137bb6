// Builds a publishable workspace package (sdk/, cli/): `tsc -p tsconfig.build.json` emits ESM JavaScript and
// declarations into dist/ (relative `.ts` imports rewritten to `.js` in JavaScript by TypeScript itself, and here in
// the declaration files, which TypeScript leaves as written). Run from the package folder.
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";

const pkgDir = process.cwd();
const dist = join(pkgDir, "dist");
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(join(pkgDir, "package.json")).resolve("typescript/bin/tsc");
execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" });

function* files(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* files(path);
    else if (path.endsWith(".d.ts")) yield path;
  }
}
const relativeTs = /(from\s+|import\()(["'])(\.{1,2}\/[^"']+)\.ts\2/g;
for (const file of files(dist)) {
  const text = readFileSync(file, "utf8");
  const fixed = text.replace(relativeTs, (_, lead, quote, path) => `${lead}${quote}${path}.js${quote}`);
  if (fixed !== text) writeFileSync(file, fixed);
}

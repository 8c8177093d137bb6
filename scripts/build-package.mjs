// Builds a publishable workspace package (sdk/): `tsc -p tsconfig.build.json` emits ESM JavaScript and declarations
// into dist/ (relative `.ts` imports rewritten to `.js` in JavaScript by TypeScript itself, and here in the
// declaration files, which TypeScript leaves as written). Run from the package folder.
//
// `"vendor": { "src/protocol": "../common/src/protocol" }` in package.json compiles a private workspace folder into
// the package in place of its own folder of that name (which re-exports the workspace package during development):
// the sources are staged in .build/ with the vendored folder copied in, so the published code has no dependency on a
// private package. A vendored folder may import only relative files and the package's own dependencies.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, resolve } from "node:path";

const pkgDir = process.cwd();
const dist = join(pkgDir, "dist");
const manifest = JSON.parse(readFileSync(join(pkgDir, "package.json"), "utf8"));
rmSync(dist, { recursive: true, force: true });
const tsc = createRequire(join(pkgDir, "package.json")).resolve("typescript/bin/tsc");

function* files(dir, suffix) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* files(path, suffix);
    else if (path.endsWith(suffix)) yield path;
  }
}

let project = join(pkgDir, "tsconfig.build.json");
const stage = join(pkgDir, ".build");
if (manifest.vendor) {
  rmSync(stage, { recursive: true, force: true });
  cpSync(join(pkgDir, "src"), join(stage, "src"), { recursive: true });
  for (const [target, source] of Object.entries(manifest.vendor)) {
    const into = join(stage, target);
    rmSync(into, { recursive: true, force: true });
    mkdirSync(into, { recursive: true });
    cpSync(resolve(pkgDir, source), into, { recursive: true, filter: (f) => !f.endsWith(".test.ts") });
    for (const file of files(into, ".ts")) {
      const bare = /from\s+["'](@agenthub\/[^"']+)["']/.exec(readFileSync(file, "utf8"));
      if (bare) throw new Error(`${file}: a vendored file imports ${bare[1]}`);
    }
  }
  project = join(stage, "tsconfig.json");
  writeFileSync(
    project,
    JSON.stringify({
      extends: join(pkgDir, "tsconfig.build.json"),
      compilerOptions: { rootDir: join(stage, "src"), outDir: dist },
      include: [join(stage, "src/**/*.ts")],
    }),
  );
}
try {
  execFileSync(process.execPath, [tsc, "-p", project], { stdio: "inherit" });
} finally {
  if (manifest.vendor) rmSync(stage, { recursive: true, force: true });
}

const relativeTs = /(from\s+|import\()(["'])(\.{1,2}\/[^"']+)\.ts\2/g;
for (const file of files(dist, ".d.ts")) {
  const text = readFileSync(file, "utf8");
  const fixed = text.replace(relativeTs, (_, lead, quote, path) => `${lead}${quote}${path}.js${quote}`);
  if (fixed !== text) writeFileSync(file, fixed);
}

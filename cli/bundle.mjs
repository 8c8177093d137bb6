// Bundles the CLI into one ES module for Node (`dist/agenthub.mjs`, what `bin/agenthub.mjs` runs): one file to
// parse starts in ~0.1 s, where loading the TypeScript sources through a loader takes seconds. Used by the
// package build and by the end-to-end tests, which spawn the same bundle.
import { build } from "esbuild";

const entry = new URL("./src/main.ts", import.meta.url).pathname;

export async function bundleCli(outfile) {
  await build({
    entryPoints: [entry],
    outfile,
    bundle: true,
    platform: "node",
    target: "node20",
    format: "esm",
    sourcemap: true,
    logLevel: "error",
    // CommonJS dependencies inside an ES module bundle still call require() for Node built-ins.
    banner: {
      js: 'import { createRequire as __createRequire } from "node:module"; const require = __createRequire(import.meta.url);',
    },
  });
  return outfile;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  await bundleCli(new URL("./dist/agenthub.mjs", import.meta.url).pathname);
}

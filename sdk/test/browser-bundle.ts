// The SDK as a browser app's bundler builds it (esbuild, platform "browser", ESM): used by the package test on the
// built dist and by the end-to-end test that runs it in Chromium (test/e2e/sdk-browser.test.ts).
import { build } from "esbuild";

export interface BrowserBundle {
  code: string;
  /** Every module the bundle took in. */
  inputs: string[];
  /** Inputs that are Node built-ins (must be none). */
  nodeBuiltins: string[];
}

/** Bundles `entry` (a file) or `contents` (source resolved from `resolveDir`) for browsers. */
export async function browserBundle(
  source: { entry: string } | { contents: string; resolveDir: string },
): Promise<BrowserBundle> {
  const result = await build({
    ...("entry" in source
      ? { entryPoints: [source.entry] }
      : { stdin: { contents: source.contents, resolveDir: source.resolveDir, loader: "ts" as const } }),
    bundle: true,
    platform: "browser",
    format: "esm",
    target: "es2022",
    write: false,
    metafile: true,
    logLevel: "silent",
  });
  const inputs = Object.keys(result.metafile.inputs);
  return {
    code: result.outputFiles[0]!.text,
    inputs,
    nodeBuiltins: inputs.filter(
      (i) => i.startsWith("node:") || /^(fs|path|crypto|http|https|net|tls|child_process)$/.test(i),
    ),
  };
}

// Makes sure the compiled artifacts and the generated ABIs and bytecode match the contract sources, compiling only
// when they do not. `npm start` on a fresh clone needs them before deploying (Ignition reads artifacts/contracts, the
// services import common/src/generated); when they are current this costs a few ms of hashing.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { repoRoot } from "./chain.ts";

/** Where the build's inputs and outputs live (the repository's, or a test's own folder). */
export interface BuildLayout {
  root: string;
  contractsDir: string;
  /** Other inputs of the generated files: compiler settings, the generator. */
  configFiles: string[];
  artifactsDir: string;
  generatedDir: string;
}

export const layoutOf = (root: string): BuildLayout => ({
  root,
  contractsDir: join(root, "contracts"),
  configFiles: [join(root, "hardhat.config.ts"), join(root, "scripts", "gen-abis.ts")],
  artifactsDir: join(root, "artifacts", "contracts"),
  generatedDir: join(root, "common", "src", "generated"),
});
const repoLayout = layoutOf(repoRoot);

const GENERATED_FILES = ["abis.ts", "bytecode.ts"];
const stampFile = (layout: BuildLayout) => join(layout.generatedDir, ".sources.sha256");

/** What a successful build wrote: the inputs' fingerprint and the artifact files it generated from. */
interface BuildStamp {
  fingerprint: string;
  artifacts: string[];
}

function* files(dir: string, suffix: string): Generator<string> {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* files(path, suffix);
    else if (entry.endsWith(suffix)) yield path;
  }
}

/** The compiled contract artifacts (without the debug files next to them). */
export function artifactFiles(layout: BuildLayout = repoLayout): string[] {
  if (!existsSync(layout.artifactsDir)) return [];
  return [...files(layout.artifactsDir, ".json")].filter((f) => !f.endsWith(".dbg.json"));
}

/** Everything the outputs depend on: contract sources, compiler settings and versions, the generator. */
export function sourcesFingerprint(layout: BuildLayout = repoLayout): string {
  const require = createRequire(join(repoRoot, "package.json"));
  const hash = createHash("sha256");
  for (const file of [...files(layout.contractsDir, ".sol"), ...layout.configFiles]) {
    hash.update(relative(layout.root, file)).update("\0").update(readFileSync(file));
  }
  for (const pkg of ["solc", "@openzeppelin/contracts", "hardhat"]) {
    hash.update(`${pkg}@${(require(`${pkg}/package.json`) as { version: string }).version}\0`);
  }
  return hash.digest("hex");
}

/** Written by gen-abis.ts after it generated the ABIs from `artifacts`. */
export function writeBuildStamp(layout: BuildLayout = repoLayout, artifacts = artifactFiles(layout)): void {
  const stamp: BuildStamp = {
    fingerprint: sourcesFingerprint(layout),
    artifacts: artifacts.map((f) => relative(layout.root, f)),
  };
  writeFileSync(stampFile(layout), `${JSON.stringify(stamp, null, 2)}\n`);
}

function readStamp(layout: BuildLayout): BuildStamp | undefined {
  try {
    const stamp = JSON.parse(readFileSync(stampFile(layout), "utf8")) as Partial<BuildStamp>;
    return typeof stamp.fingerprint === "string" && Array.isArray(stamp.artifacts) && stamp.artifacts.length > 0
      ? (stamp as BuildStamp)
      : undefined;
  } catch {
    return undefined; // missing, or written by an older generator
  }
}

/**
 * Current when the generated files exist, were made from today's sources, and every artifact they were made from
 * is still there (`hardhat clean` removes artifacts/ and leaves the generated files and the stamp behind).
 */
export function buildIsCurrent(layout: BuildLayout = repoLayout, fingerprint = sourcesFingerprint(layout)): boolean {
  const stamp = readStamp(layout);
  return (
    stamp !== undefined &&
    stamp.fingerprint === fingerprint &&
    GENERATED_FILES.every((f) => existsSync(join(layout.generatedDir, f))) &&
    stamp.artifacts.every((f) => existsSync(join(layout.root, f)))
  );
}

/** Compiles the contracts and regenerates the typed ABIs (which writes the stamp). */
function compileAndGenerate(layout: BuildLayout): void {
  const bin = (name: string) => join(layout.root, "node_modules", ".bin", name);
  for (const [cmd, args] of [
    [bin("hardhat"), ["compile", "--quiet"]],
    [bin("tsx"), [join(layout.root, "scripts", "gen-abis.ts")]],
  ] as const) {
    const res = spawnSync(cmd, [...args], { cwd: layout.root, stdio: ["ignore", "inherit", "inherit"] });
    if (res.status !== 0)
      throw new Error(`${relative(layout.root, cmd)} ${args.join(" ")} failed (exit ${res.status})`);
  }
}

/** Builds when the outputs are missing or stale; returns whether it built. */
export function ensureBuild(
  log: (msg: string) => void = console.log,
  { layout = repoLayout, build = compileAndGenerate }: { layout?: BuildLayout; build?: (l: BuildLayout) => void } = {},
): boolean {
  if (buildIsCurrent(layout)) return false;
  log("build      compiling contracts and generating typed ABIs (first run: ~20 s)…");
  const started = Date.now();
  build(layout);
  if (!buildIsCurrent(layout)) throw new Error("the build finished but its outputs are still missing or stale");
  log(`build      done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return true;
}

// Makes sure the generated ABIs and bytecode match the contract sources, compiling only when they do not.
// `npm start` on a fresh clone needs them before deploying; when they are current this costs a few ms of hashing.
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import { repoRoot } from "./chain.ts";

const generatedDir = join(repoRoot, "common", "src", "generated");
const stampFile = join(generatedDir, ".sources.sha256");
const generatedFiles = ["abis.ts", "bytecode.ts"].map((f) => join(generatedDir, f));

function* solidityFiles(dir: string): Generator<string> {
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) yield* solidityFiles(path);
    else if (entry.endsWith(".sol")) yield path;
  }
}

/** Everything the generated files depend on: contract sources, compiler settings and versions, the generator. */
export function sourcesFingerprint(): string {
  const require = createRequire(join(repoRoot, "package.json"));
  const hash = createHash("sha256");
  const inputs = [
    ...solidityFiles(join(repoRoot, "contracts")),
    join(repoRoot, "hardhat.config.ts"),
    join(repoRoot, "scripts", "gen-abis.ts"),
  ];
  for (const file of inputs) hash.update(relative(repoRoot, file)).update("\0").update(readFileSync(file));
  for (const pkg of ["solc", "@openzeppelin/contracts", "hardhat"]) {
    hash.update(`${pkg}@${(require(`${pkg}/package.json`) as { version: string }).version}\0`);
  }
  return hash.digest("hex");
}

export function buildIsCurrent(fingerprint = sourcesFingerprint()): boolean {
  return (
    generatedFiles.every((f) => existsSync(f)) &&
    existsSync(stampFile) &&
    readFileSync(stampFile, "utf8").trim() === fingerprint
  );
}

/** Compiles the contracts and regenerates the typed ABIs (gen-abis writes the stamp) when missing or stale. */
export function ensureBuild(log: (msg: string) => void = console.log): void {
  const fingerprint = sourcesFingerprint();
  if (buildIsCurrent(fingerprint)) return;
  log("build      compiling contracts and generating typed ABIs (first run: ~20 s)…");
  const started = Date.now();
  const bin = (name: string) => join(repoRoot, "node_modules", ".bin", name);
  for (const [cmd, args] of [
    [bin("hardhat"), ["compile", "--quiet"]],
    [bin("tsx"), [join(repoRoot, "scripts", "gen-abis.ts")]],
  ] as const) {
    const res = spawnSync(cmd, [...args], { cwd: repoRoot, stdio: ["ignore", "inherit", "inherit"] });
    if (res.status !== 0) throw new Error(`${relative(repoRoot, cmd)} ${args.join(" ")} failed (exit ${res.status})`);
  }
  log(`build      done in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

// The oldest Node major the published packages support (their engines.node, ">=20"), found on this machine so the
// packages' tests can run their built code on it (CI machines have it as their system Node; the workspace itself
// runs on the Node 22 that bootstrap installs).
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { delimiter, join } from "node:path";

/** The major of a package.json's `engines.node` floor (">=20" -> 20). */
export function minNodeMajor(packageJson: string): number {
  const range = JSON.parse(readFileSync(packageJson, "utf8")).engines?.node as string | undefined;
  const floor = range && /^>=\s*(\d+)/.exec(range)?.[1];
  if (!floor) throw new Error(`${packageJson}: engines.node should read ">=N", not ${range}`);
  return Number(floor);
}

/**
 * A `node` binary of major `major`: $AGENTHUB_NODE_MIN if set, else the first one on the PATH or in the usual system
 * places. Throws, naming every binary it tried, when there is none (the tests are never skipped for it).
 */
export function nodeOfMajor(major: number): string {
  const candidates = [
    process.env.AGENTHUB_NODE_MIN,
    ...(process.env.PATH ?? "").split(delimiter).map((dir) => join(dir, "node")),
    "/usr/bin/node",
    "/usr/local/bin/node",
  ].filter((c): c is string => Boolean(c) && existsSync(c!));
  const tried: string[] = [];
  for (const candidate of new Set(candidates)) {
    const version = execFileSync(candidate, ["--version"], { encoding: "utf8" }).trim();
    if (version.startsWith(`v${major}.`)) return candidate;
    tried.push(`${candidate} (${version})`);
  }
  throw new Error(
    `no Node ${major}.x on this machine (tried ${tried.join(", ") || "nothing"}): install it as the system node or set AGENTHUB_NODE_MIN to one`,
  );
}

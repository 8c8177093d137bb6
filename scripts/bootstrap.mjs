#!/usr/bin/env node
// Entry point for `npm start` / `npm test` on a machine that may only have an older Node and npm.
// Hardhat 3 needs Node >= 22.13, so we provide Node 22 and pnpm from the npm registry under .tools/
// and install the workspace with them (installing under Node 20 would skip EDR's native binary).
import { spawn, spawnSync } from "node:child_process";
import { existsSync, statSync } from "node:fs";
import { constants } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const tools = join(root, ".tools");
const toolsBin = join(tools, "node_modules", ".bin");
const task = process.argv[2];
if (!task) {
  console.error("usage: node scripts/bootstrap.mjs <root script>");
  process.exit(2);
}

function run(cmd, args, opts = {}) {
  const res = spawnSync(cmd, args, { stdio: "inherit", cwd: root, ...opts });
  if (res.error) throw res.error;
  return res.status ?? 1;
}

const nodeMajorMinor = process.versions.node.split(".").map(Number);
const systemNodeOk = nodeMajorMinor[0] > 22 || (nodeMajorMinor[0] === 22 && nodeMajorMinor[1] >= 13);
if (!existsSync(join(toolsBin, "pnpm")) || (!systemNodeOk && !existsSync(join(toolsBin, "node")))) {
  console.log("[bootstrap] installing Node 22 and pnpm 10 into .tools/ (one time)");
  const pkgs = systemNodeOk ? ["pnpm@10.34.9"] : ["node@22", "pnpm@10.34.9"];
  const status = run("npm", ["install", "--prefix", tools, "--no-audit", "--no-fund", "--loglevel=error", ...pkgs]);
  if (status !== 0) process.exit(status);
}

const env = { ...process.env, PATH: `${toolsBin}:${process.env.PATH}`, PONDER_TELEMETRY_DISABLED: "true" };
const marker = join(root, "node_modules", ".modules.yaml");
const lock = join(root, "pnpm-lock.yaml");
if (!existsSync(marker) || (existsSync(lock) && statSync(lock).mtimeMs > statSync(marker).mtimeMs)) {
  console.log("[bootstrap] installing workspace dependencies");
  const args = ["install", "--prefer-offline"];
  if (existsSync(lock)) args.push("--frozen-lockfile");
  const status = run("pnpm", args, { env });
  if (status !== 0) process.exit(status);
}

// The stack runs directly under Node 22 (no pnpm/tsx wrappers between the terminal and the orchestrator), and this
// process stays until it exits: Ctrl-C reaches the orchestrator, which stops every service before the prompt returns.
const [cmd, args] =
  task === "stack"
    ? ["node", ["--import", "tsx", join("scripts", "stack.ts"), ...process.argv.slice(3)]]
    : ["pnpm", ["run", task, ...process.argv.slice(3)]];
const child = spawn(cmd, args, { stdio: "inherit", cwd: root, env });
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(signal, () => {
    if (child.exitCode === null) child.kill(signal);
  });
}
child.on("error", (error) => {
  console.error(`[bootstrap] ${cmd}: ${error.message}`);
  process.exit(1);
});
child.on("exit", (code, signal) => process.exit(code ?? 128 + (signal ? (constants.signals[signal] ?? 0) : 1)));

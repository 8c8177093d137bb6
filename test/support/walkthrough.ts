// Executable documentation: the marked shell blocks of a Markdown file, run the way a newcomer runs them (bash, only
// Node.js and npm on PATH, the stack's addresses in AGENTHUB_API and AGENTHUB_RPC). Used by the docs walk-through
// test (in the repository) and by the packages test (in an empty folder with the packed SDK and CLI installed).
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { stack } from "./stack.ts";

const MARKER = /^<!--\s*walkthrough\b.*-->\s*$/;

/** The `sh` blocks of a Markdown file preceded by `<!-- walkthrough … -->`, in order. */
export function walkthroughBlocks(markdown: string): string[] {
  const lines = markdown.split("\n");
  const blocks: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!MARKER.test(lines[i]!) || lines[i + 1]?.trim() !== "```sh") continue;
    const end = lines.indexOf("```", i + 2);
    assert.ok(end > i, `unterminated walk-through block after line ${i + 1}`);
    blocks.push(lines.slice(i + 2, end).join("\n"));
    i = end;
  }
  return blocks;
}

/** A newcomer's shell: system Node and npm only (no .tools, no pnpm), HOME kept for npm's cache. */
export function newcomerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    HOME: process.env.HOME ?? "/root",
    PATH: "/usr/local/bin:/usr/bin:/bin",
    AGENTHUB_API: stack.apiUrl,
    AGENTHUB_RPC: stack.rpcUrl,
    ...extra,
  };
}

/** Runs `script` with bash in `cwd` (newcomer's environment); resolves with the exit code and the whole transcript. */
export function runShell(
  script: string,
  cwd: string,
  env: NodeJS.ProcessEnv = newcomerEnv(),
): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], { cwd, env, stdio: ["ignore", "pipe", "pipe"] });
    let output = "";
    child.stdout.on("data", (d) => (output += d));
    child.stderr.on("data", (d) => (output += d));
    const timer = setTimeout(() => child.kill("SIGKILL"), 15 * 60_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

/** The walk-through blocks as one script: stops at the first failing command and names it (-x). */
export function walkthroughScript(blocks: string[]): string {
  return ["set -euxo pipefail", "node --version", ...blocks].join("\n");
}

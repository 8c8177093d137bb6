// The documentation is executable: the walk-throughs of README.md (quick start) and docs/cli.md — the fenced `sh`
// blocks marked with an HTML comment `<!-- walkthrough … -->` — run verbatim, in order, one shell per document, in
// a clean environment with only Node.js and npm on PATH (as a newcomer has them), against this stack. A command
// that drifts from the code fails here. The documents name the default local stack; the shell gets this stack's
// addresses through AGENTHUB_API and AGENTHUB_RPC, the variables the documents tell users to set for another
// deployment. The governance block moves chain time (evm_increaseTime), so this file runs among the
// time-travelling files.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { stack } from "../support/stack.ts";

const root = new URL("../..", import.meta.url).pathname;
const MARKER = /^<!--\s*walkthrough\b.*-->\s*$/;

/** The marked `sh` blocks of a Markdown file, in order. */
function walkthroughBlocks(markdown: string): string[] {
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

// Work folders live under the repository (gitignored .data/), so `npx agenthub` finds the checkout's CLI as it
// does for a user in the repository.
const work = join(root, ".data", `walkthrough-${process.pid}`);
after(() => rmSync(work, { recursive: true, force: true }));

function runShell(script: string, cwd: string): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn("bash", ["-c", script], {
      cwd,
      env: {
        HOME: process.env.HOME ?? "/root",
        PATH: "/usr/local/bin:/usr/bin:/bin",
        AGENTHUB_API: stack.apiUrl,
        AGENTHUB_RPC: stack.rpcUrl,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
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

describe("documented walk-throughs, verbatim", () => {
  it("finds the marked blocks", () => {
    assert.ok(walkthroughBlocks(readFileSync(join(root, "README.md"), "utf8")).length >= 1);
    assert.ok(walkthroughBlocks(readFileSync(join(root, "docs", "cli.md"), "utf8")).length >= 3);
  });

  for (const doc of ["README.md", "docs/cli.md"]) {
    it(`${doc} runs as written with only Node.js and npm`, async () => {
      const blocks = walkthroughBlocks(readFileSync(join(root, doc), "utf8"));
      const cwd = join(work, doc.replace(/\W/g, "-"));
      mkdirSync(cwd, { recursive: true });
      // -x: the transcript names the command that failed.
      const script = ["set -euxo pipefail", "node --version", ...blocks].join("\n");
      const { code, output } = await runShell(script, cwd);
      assert.equal(code, 0, `${doc} failed:\n${output.slice(-6000)}`);
    });
  }
});

// The documentation is executable: the walk-throughs of README.md (quick start), docs/cli.md and docs/curl.md — the
// fenced `sh` blocks marked with an HTML comment `<!-- walkthrough … -->` — run verbatim, in order, one shell per
// document, in a clean environment with only Node.js and npm on PATH (as a newcomer has them), against this stack. A command
// that drifts from the code fails here. The documents name the default local stack; the shell gets this stack's
// addresses through AGENTHUB_API and AGENTHUB_RPC, the variables the documents tell users to set for another
// deployment. The governance block moves chain time (evm_increaseTime), so this file runs among the
// time-travelling files.
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { after, describe, it } from "node:test";
import { rateKeyOf } from "../../api/src/lib/client-ip.ts";
import { db } from "../support/stack.ts";
import { runShell, walkthroughBlocks, walkthroughScript } from "../support/walkthrough.ts";

const root = new URL("../..", import.meta.url).pathname;

// Work folders live under the repository (gitignored .data/), so `npx agenthub` finds the checkout's CLI as it
// does for a user in the repository.
const work = join(root, ".data", `walkthrough-${process.pid}`);
after(() => rmSync(work, { recursive: true, force: true }));

describe("documented walk-throughs, verbatim", () => {
  it("finds the marked blocks", () => {
    assert.ok(walkthroughBlocks(readFileSync(join(root, "README.md"), "utf8")).length >= 1);
    assert.ok(walkthroughBlocks(readFileSync(join(root, "docs", "cli.md"), "utf8")).length >= 3);
    assert.ok(walkthroughBlocks(readFileSync(join(root, "docs", "curl.md"), "utf8")).length >= 6);
  });

  for (const doc of ["README.md", "docs/cli.md", "docs/curl.md"]) {
    it(`${doc} runs as written with only Node.js and npm`, async () => {
      const blocks = walkthroughBlocks(readFileSync(join(root, doc), "utf8"));
      // Each document is a newcomer on a machine of their own: loopback starts with its day's registrations unused
      // (the suite's other files that run CLI commands from loopback, e.g. packages.test.ts, used some already).
      const loopback = ["127.0.0.1", "::1"].map((ip) => `register:${rateKeyOf(ip)}`);
      await db.query("delete from api.rate_limit where key = any($1)", [loopback]);
      await db.query("delete from api.rate_limit_lease where key = any($1)", [loopback]);
      const cwd = join(work, doc.replace(/\W/g, "-"));
      mkdirSync(cwd, { recursive: true });
      const { code, output } = await runShell(walkthroughScript(blocks), cwd);
      assert.equal(code, 0, `${doc} failed:\n${output.slice(-6000)}`);
    });
  }
});

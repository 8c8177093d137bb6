// Runs node:test files one at a time in the order given (the `node --test` command line sorts its files; the
// suite's order matters: scripts/test-e2e.ts puts the files that move chain time last). TAP on stdout, exit code 1
// when any test failed.
import { run } from "node:test";
import { tap } from "node:test/reporters";

// Per file: the documentation walk-through (test/e2e/docs-walkthrough.test.ts) runs some forty CLI processes.
const stream = run({ files: process.argv.slice(2), concurrency: 1, timeout: 900_000 });
stream.on("test:fail", () => {
  process.exitCode = 1;
});
stream.compose(tap).pipe(process.stdout);

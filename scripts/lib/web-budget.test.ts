// The explorer's first-load budget (issue 25): every explorer page loads at most 200 KiB of JavaScript, gzip, before
// it renders, and none of it is the signing client or the wallet code (both load on demand). Builds web/dist when it
// is missing or stale (the same check npm start and the e2e runner use), then reads the Vite manifest.
import assert from "node:assert/strict";
import { before, describe, it } from "node:test";
import { explorerFirstLoads, FIRST_LOAD_BUDGET_BYTES, kib, onDemandFiles } from "./web-budget.ts";
import { ensureWebBuild, webDistDir } from "./web-build.ts";

describe("web app first-load budget", () => {
  before(() => {
    ensureWebBuild(() => {});
  });

  it(`every explorer page's first load is at most ${kib(FIRST_LOAD_BUDGET_BYTES)} of JavaScript, gzip`, () => {
    const loads = explorerFirstLoads(webDistDir);
    assert.ok(loads.length >= 8);
    for (const load of loads) {
      assert.ok(
        load.gzipBytes <= FIRST_LOAD_BUDGET_BYTES,
        `${load.path}: ${kib(load.gzipBytes)} gzip > ${kib(FIRST_LOAD_BUDGET_BYTES)} (${load.files.join(", ")})`,
      );
    }
  });

  it("no explorer page loads the signing client or the wallet code first", () => {
    const onDemand = onDemandFiles(webDistDir);
    for (const load of explorerFirstLoads(webDistDir)) {
      for (const file of onDemand) assert.ok(!load.files.includes(file), `${load.path} loads ${file} first`);
    }
  });
});

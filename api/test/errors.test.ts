// One error catalogue: every error code written anywhere in api/src (thrown, mapped from a contract revert,
// rendered by the boundary) is listed in api/src/errors.ts.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";
import { renderErrorsDoc } from "../src/error-docs.ts";
import { apiError, ERRORS } from "../src/errors.ts";

const src = new URL("../src", import.meta.url).pathname;
// errors.ts itself is the catalogue.
const files = (readdirSync(src, { recursive: true }) as string[]).filter((f) => f.endsWith(".ts") && f !== "errors.ts");

const CODE_PATTERNS = [
  /new ApiError\(\s*\d+,\s*"([A-Z0-9_]+)"/g,
  /new PaymentError\(\s*\d+,\s*"([A-Z0-9_]+)"/g,
  /apiError\(\s*"([A-Z0-9_]+)"/g,
  /errors\.\w+\(\s*"([A-Z0-9_]+)"/g,
  /errorBody\(\s*"([A-Z0-9_]+)"/g,
  /\bcode: "([A-Z0-9_]+)"/g,
];

describe("error catalogue", () => {
  it("lists every code the API answers with", () => {
    const missing = new Set<string>();
    let seen = 0;
    for (const file of files) {
      const text = readFileSync(join(src, file), "utf8");
      for (const pattern of CODE_PATTERNS) {
        for (const m of text.matchAll(pattern)) {
          seen += 1;
          if (!(m[1]! in ERRORS)) missing.add(`${m[1]} (${file})`);
        }
      }
    }
    assert.ok(seen > 100, `found ${seen} error codes in api/src`);
    assert.deepEqual([...missing], []);
  });

  it("documents every catalogued code in docs/errors.md (pnpm run compile regenerates it)", () => {
    const doc = readFileSync(new URL("../../docs/errors.md", import.meta.url), "utf8");
    assert.equal(doc, renderErrorsDoc(), "docs/errors.md is stale: run pnpm run compile");
    for (const code of Object.keys(ERRORS)) assert.match(doc, new RegExp(`^\\| ${code} \\|`, "m"));
  });

  it("builds errors with the catalogued status and message, keeping the cause", () => {
    const cause = new Error("socket hang up");
    const e = apiError("AGENT_NOT_FOUND", undefined, { cause });
    assert.equal(e.status, 404);
    assert.equal(e.message, ERRORS.AGENT_NOT_FOUND.message);
    assert.equal(e.cause, cause);
    assert.equal(apiError("INSUFFICIENT_STAKE", "no stake").status, 400);
    assert.equal(apiError("INSUFFICIENT_STAKE", "no stake", { alt: true }).status, 403);
  });
});

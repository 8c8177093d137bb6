import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { loadDotEnv, urlList } from "./env.ts";

const names = ["AGENTHUB_TEST_FROM_FILE", "AGENTHUB_TEST_REAL", "AGENTHUB_TEST_QUOTED"];
afterEach(() => {
  for (const name of names) delete process.env[name];
});

describe("loadDotEnv", () => {
  it("adds the file's variables and never overrides the real environment", () => {
    const file = join(mkdtempSync(join(tmpdir(), "dotenv-")), ".env");
    writeFileSync(
      file,
      '# comment\nAGENTHUB_TEST_FROM_FILE=from-file\nAGENTHUB_TEST_REAL=from-file\nAGENTHUB_TEST_QUOTED="a b # c"\n',
    );
    process.env.AGENTHUB_TEST_REAL = "real";
    assert.equal(loadDotEnv(file), file);
    assert.equal(process.env.AGENTHUB_TEST_FROM_FILE, "from-file");
    assert.equal(process.env.AGENTHUB_TEST_REAL, "real");
    assert.equal(process.env.AGENTHUB_TEST_QUOTED, "a b # c");
  });

  it("reads nothing when the file is missing or the path is empty", () => {
    assert.equal(loadDotEnv(join(tmpdir(), "no-such-dir-agenthub", ".env")), undefined);
    assert.equal(loadDotEnv(""), undefined);
    assert.equal(process.env.AGENTHUB_TEST_FROM_FILE, undefined);
  });
});

describe("urlList", () => {
  it("splits a comma list of URLs and refuses anything else", () => {
    assert.deepEqual(urlList.parse(" http://a:1 ,http://b:2,"), ["http://a:1", "http://b:2"]);
    assert.equal(urlList.parse(undefined), undefined);
    assert.equal(urlList.parse(""), undefined);
    assert.equal(urlList.safeParse("http://a:1,not a url").success, false);
  });
});

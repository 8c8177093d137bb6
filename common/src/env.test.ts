import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, it } from "node:test";
import { loadDotEnv, readSecretFiles, urlList } from "./env.ts";

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

describe("readSecretFiles", () => {
  const dir = mkdtempSync(join(tmpdir(), "agenthub-secrets-"));
  const key = `0x${"ab".repeat(32)}`;
  const file = join(dir, "relayer.key");
  writeFileSync(file, `${key}\n`, { mode: 0o600 });

  it("reads NAME from the file NAME_FILE names, trimmed, and leaves everything else as it was", () => {
    const env = readSecretFiles({ RELAYER_PRIVATE_KEY_FILE: file, PORT: "3001" });
    assert.equal(env.RELAYER_PRIVATE_KEY, key);
    assert.equal(env.PORT, "3001");
    assert.deepEqual(readSecretFiles({ RELAYER_PRIVATE_KEY: key }), { RELAYER_PRIVATE_KEY: key });
  });

  it("refuses both set, an unreadable file and an empty one", () => {
    assert.throws(
      () => readSecretFiles({ RELAYER_PRIVATE_KEY: key, RELAYER_PRIVATE_KEY_FILE: file }),
      /RELAYER_PRIVATE_KEY: set either RELAYER_PRIVATE_KEY or RELAYER_PRIVATE_KEY_FILE, not both/,
    );
    assert.throws(
      () => readSecretFiles({ PAYMASTER_SIGNER_KEY_FILE: join(dir, "missing") }),
      /PAYMASTER_SIGNER_KEY_FILE: cannot read .*missing \(ENOENT\)/,
    );
    const empty = join(dir, "empty");
    writeFileSync(empty, "\n");
    assert.throws(() => readSecretFiles({ KEY_ENCRYPTION_KEY_FILE: empty }), /KEY_ENCRYPTION_KEY_FILE: .* is empty/);
  });
});

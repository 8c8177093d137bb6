// The paymaster's approving key is never the relayer's hot key: the API (and the relayer) refuse to start with both
// set to the same key in one environment.
import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, it } from "node:test";
import { loadRelayerEnv } from "../../relayer/src/env.ts";
import { loadApiEnv } from "../src/env.ts";

const key = (byte: string) => `0x${byte.repeat(32)}`;
const base = {
  DATABASE_URL: "postgres://localhost/agenthub",
  RELAYER_TOKEN: "r".repeat(32),
  ADMIN_TOKEN: "a".repeat(32),
  KEY_ENCRYPTION_KEY: key("11"),
  PLATFORM_RECIPIENT_ADDRESS: `0x${"22".repeat(20)}`,
};

describe("PAYMASTER_SIGNER_KEY and RELAYER_PRIVATE_KEY", () => {
  it("the API refuses the relayer's key as the paymaster's, in any letter case", () => {
    for (const paymaster of [key("ab"), key("AB")]) {
      assert.throws(
        () => loadApiEnv({ ...base, RELAYER_PRIVATE_KEY: key("ab"), PAYMASTER_SIGNER_KEY: paymaster }),
        /PAYMASTER_SIGNER_KEY: is RELAYER_PRIVATE_KEY/,
      );
    }
  });

  it("the API starts with keys of their own, or with either one alone", () => {
    const env = loadApiEnv({ ...base, RELAYER_PRIVATE_KEY: key("ab"), PAYMASTER_SIGNER_KEY: key("cd") });
    assert.equal(env.PAYMASTER_SIGNER_KEY, key("cd"));
    assert.equal("RELAYER_PRIVATE_KEY" in env, false, "the API keeps no copy of the relayer's key");
    assert.doesNotThrow(() => loadApiEnv({ ...base, PAYMASTER_SIGNER_KEY: key("cd") }));
    assert.doesNotThrow(() => loadApiEnv({ ...base, RELAYER_PRIVATE_KEY: key("ab") }));
  });

  it("the relayer refuses it too when both are in its environment", () => {
    const relayer = {
      DATABASE_URL: base.DATABASE_URL,
      RELAYER_TOKEN: base.RELAYER_TOKEN,
      RELAYER_PRIVATE_KEY: key("ab"),
    };
    assert.throws(() => loadRelayerEnv({ ...relayer, PAYMASTER_SIGNER_KEY: key("ab") }), /PAYMASTER_SIGNER_KEY/);
    assert.doesNotThrow(() => loadRelayerEnv({ ...relayer, PAYMASTER_SIGNER_KEY: key("cd") }));
  });
});

describe("secrets from files (<NAME>_FILE)", () => {
  it("the relayer and the API read their keys from files, and still refuse a shared signer", () => {
    const dir = mkdtempSync(join(tmpdir(), "agenthub-keys-"));
    const write = (name: string, value: string) => {
      const path = join(dir, name);
      writeFileSync(path, `${value}\n`, { mode: 0o600 });
      return path;
    };
    const relayerFile = write("relayer", key("ab"));
    const relayer = loadRelayerEnv({ ...base, RELAYER_PRIVATE_KEY_FILE: relayerFile });
    assert.equal(relayer.RELAYER_PRIVATE_KEY, key("ab"));
    const api = loadApiEnv({ ...base, PAYMASTER_SIGNER_KEY_FILE: write("paymaster", key("cd")) });
    assert.equal(api.PAYMASTER_SIGNER_KEY, key("cd"));
    assert.throws(
      () => loadRelayerEnv({ ...base, RELAYER_PRIVATE_KEY_FILE: relayerFile, PAYMASTER_SIGNER_KEY: key("ab") }),
      /PAYMASTER_SIGNER_KEY: is RELAYER_PRIVATE_KEY/,
    );
  });
});

// The paymaster's approving key is never the relayer's hot key: the API (and the relayer) refuse to start with both
// set to the same key in one environment.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { loadRelayerEnv } from "@agenthub/relayer/env";
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

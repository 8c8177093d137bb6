// Keystore v3 interop with ethers (Wallet.encrypt / fromEncryptedJson), both directions, and its failure modes.
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decryptKeystoreJsonSync, encryptKeystoreJsonSync } from "ethers";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { decryptKeystore, encryptKeystore, KeystoreError } from "../src/keystore.ts";

describe("keystore v3", () => {
  const key = generatePrivateKey();
  const address = privateKeyToAccount(key).address;

  it("decrypts what ethers encrypts", () => {
    const json = encryptKeystoreJsonSync({ address, privateKey: key }, "pässword", { scrypt: { N: 1024 } });
    assert.equal(decryptKeystore(json, "pässword"), key);
  });

  it("ethers decrypts what we encrypt", () => {
    const json = encryptKeystore(key, "secret", { light: true });
    const account = decryptKeystoreJsonSync(json, "secret");
    assert.equal(account.privateKey, key);
    assert.equal(account.address, address);
    assert.equal(JSON.parse(json).crypto.kdfparams.n, 4096);
  });

  it("refuses a wrong password, a tampered ciphertext and a mismatched address", () => {
    const json = encryptKeystore(key, "secret", { light: true });
    assert.throws(
      () => decryptKeystore(json, "Secret"),
      (e: Error) => e instanceof KeystoreError && /wrong password/.test(e.message),
    );
    const ks = JSON.parse(json);
    ks.crypto.ciphertext = `${ks.crypto.ciphertext.slice(0, -2)}${ks.crypto.ciphertext.endsWith("00") ? "01" : "00"}`;
    assert.throws(() => decryptKeystore(JSON.stringify(ks), "secret"), /wrong password/);
    const other = JSON.parse(json);
    other.address = privateKeyToAccount(generatePrivateKey()).address.slice(2).toLowerCase();
    assert.throws(() => decryptKeystore(JSON.stringify(other), "secret"), /does not match/);
    assert.throws(() => decryptKeystore("not json", "x"), /not JSON/);
  });
});

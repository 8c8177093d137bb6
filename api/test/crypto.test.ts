import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { describe, it } from "node:test";
import { generatePrivateKey, privateKeyToAccount } from "viem/accounts";
import { KeyStore } from "../src/lib/keystore.ts";
import { cidOf } from "../src/stores/ipfs.ts";

describe("key store (AES-256-GCM)", () => {
  const store = new KeyStore(`0x${randomBytes(32).toString("hex")}`);
  const key = generatePrivateKey();
  const wallet = privateKeyToAccount(key).address;

  it("round-trips and never stores the plaintext", () => {
    const blob = store.encrypt(key, wallet);
    assert.equal(blob.includes(Buffer.from(key.slice(2), "hex")), false);
    assert.equal(store.decrypt(blob, wallet), key);
    assert.notDeepEqual(store.encrypt(key, wallet), blob, "fresh IV each time");
  });

  it("refuses a ciphertext moved to another wallet, tampered, or read with another key", () => {
    const blob = store.encrypt(key, wallet);
    assert.throws(() => store.decrypt(blob, privateKeyToAccount(generatePrivateKey()).address));
    const tampered = Buffer.from(blob);
    tampered.writeUInt8(tampered.readUInt8(tampered.length - 1) ^ 1, tampered.length - 1);
    assert.throws(() => store.decrypt(tampered, wallet));
    assert.throws(() => new KeyStore(`0x${randomBytes(32).toString("hex")}`).decrypt(blob, wallet));
    assert.throws(() => new KeyStore("0x1234"), /32 bytes/);
  });
});

describe("content ids", () => {
  it("matches the CID IPFS gives raw-leaf files (known vector)", async () => {
    // `echo -n hello | ipfs add --cid-version 1 --raw-leaves` → bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq
    assert.equal(
      await cidOf(new TextEncoder().encode("hello")),
      "bafkreibm6jg3ux5qumhcn2b3flc3tyu6dmlb4xa7u5bf44yegnrjhc4yeq",
    );
  });
});

// Web3 Secret Storage (keystore v3) files, the encrypted JSON format of geth, ethers (Wallet.encrypt /
// fromEncryptedJson) and Foundry (cast wallet): scrypt or PBKDF2-SHA256 derives a key from the password, AES-128-CTR
// encrypts the private key, keccak256(derivedKey[16..32] ++ ciphertext) authenticates it.
import { ctr } from "@noble/ciphers/aes";
import { pbkdf2 } from "@noble/hashes/pbkdf2";
import { scrypt } from "@noble/hashes/scrypt";
import { sha256 } from "@noble/hashes/sha256";
import { bytesToHex, concatBytes, hexToBytes, randomBytes } from "@noble/hashes/utils";
import { getAddress, type Hex, keccak256 } from "viem";
import { privateKeyToAccount } from "viem/accounts";

export class KeystoreError extends Error {
  override readonly name = "KeystoreError";
}

interface KeystoreV3 {
  version: 3;
  id: string;
  address: string;
  crypto: {
    cipher: "aes-128-ctr";
    ciphertext: string;
    cipherparams: { iv: string };
    kdf: "scrypt" | "pbkdf2";
    kdfparams:
      | { dklen: number; salt: string; n: number; r: number; p: number }
      | { dklen: number; salt: string; c: number; prf: "hmac-sha256" };
    mac: string;
  };
}

const strip = (hex: string) => hex.replace(/^0x/, "");
const utf8 = (s: string) => new TextEncoder().encode(s.normalize("NFKC"));

function deriveKey(password: string, crypto: KeystoreV3["crypto"]): Uint8Array {
  const params = crypto.kdfparams;
  const salt = hexToBytes(strip(params.salt));
  if (crypto.kdf === "scrypt" && "n" in params) {
    return scrypt(utf8(password), salt, {
      N: params.n,
      r: params.r,
      p: params.p,
      dkLen: params.dklen,
      maxmem: 2 ** 31,
    });
  }
  if (crypto.kdf === "pbkdf2" && "c" in params) {
    if (params.prf !== "hmac-sha256") throw new KeystoreError(`unsupported pbkdf2 prf ${params.prf}`);
    return pbkdf2(sha256, utf8(password), salt, { c: params.c, dkLen: params.dklen });
  }
  throw new KeystoreError(`unsupported kdf ${crypto.kdf}`);
}

function mac(derived: Uint8Array, ciphertext: Uint8Array): string {
  return strip(keccak256(concatBytes(derived.slice(16, 32), ciphertext)));
}

/** Decrypts a keystore v3 JSON text; throws KeystoreError on a wrong password or a malformed file. */
export function decryptKeystore(json: string, password: string): Hex {
  let ks: KeystoreV3;
  try {
    ks = JSON.parse(json);
  } catch {
    throw new KeystoreError("the keystore is not JSON");
  }
  const crypto = ks?.crypto ?? (ks as unknown as { Crypto?: KeystoreV3["crypto"] }).Crypto;
  if (ks?.version !== 3 || !crypto) throw new KeystoreError("not a version 3 keystore");
  if (crypto.cipher !== "aes-128-ctr") throw new KeystoreError(`unsupported cipher ${crypto.cipher}`);
  const derived = deriveKey(password, crypto);
  const ciphertext = hexToBytes(strip(crypto.ciphertext));
  if (mac(derived, ciphertext) !== strip(crypto.mac).toLowerCase()) {
    throw new KeystoreError("wrong password (keystore MAC mismatch)");
  }
  const key = ctr(derived.slice(0, 16), hexToBytes(strip(crypto.cipherparams.iv))).decrypt(ciphertext);
  const privateKey = `0x${bytesToHex(key)}` as Hex;
  if (ks.address && getAddress(`0x${strip(ks.address)}`) !== privateKeyToAccount(privateKey).address) {
    throw new KeystoreError("the keystore's address does not match its key");
  }
  return privateKey;
}

/**
 * Encrypts a private key as keystore v3 (scrypt). `light` uses N = 4096 (geth's --lightkdf) instead of 131072:
 * faster to open, cheaper to brute-force; for throwaway test keys.
 */
export function encryptKeystore(privateKey: Hex, password: string, opts: { light?: boolean } = {}): string {
  const salt = randomBytes(32);
  const iv = randomBytes(16);
  const n = opts.light ? 4096 : 131072;
  const kdfparams = { dklen: 32, salt: bytesToHex(salt), n, r: 8, p: 1 };
  const derived = scrypt(utf8(password), salt, { N: n, r: 8, p: 1, dkLen: 32, maxmem: 2 ** 31 });
  const ciphertext = ctr(derived.slice(0, 16), iv).encrypt(hexToBytes(strip(privateKey)));
  const id = globalThis.crypto.randomUUID();
  const ks: KeystoreV3 = {
    version: 3,
    id,
    address: strip(privateKeyToAccount(privateKey).address).toLowerCase(),
    crypto: {
      cipher: "aes-128-ctr",
      ciphertext: bytesToHex(ciphertext),
      cipherparams: { iv: bytesToHex(iv) },
      kdf: "scrypt",
      kdfparams,
      mac: mac(derived, ciphertext),
    },
  };
  return `${JSON.stringify(ks, null, 2)}\n`;
}

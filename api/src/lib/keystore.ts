// Agent wallet keys at rest: AES-256-GCM, with the wallet address as associated data so a ciphertext
// cannot be moved to another row.
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import type { Hex } from "viem";

const IV_BYTES = 12;
const TAG_BYTES = 16;

export class KeyStore {
  private readonly key: Buffer;

  constructor(hexKey: string) {
    this.key = Buffer.from(hexKey.replace(/^0x/, ""), "hex");
    if (this.key.length !== 32) throw new Error("KEY_ENCRYPTION_KEY must be 32 bytes");
  }

  encrypt(privateKey: Hex, walletAddress: string): Buffer {
    return this.seal(Buffer.from(privateKey.slice(2), "hex"), walletAddress.toLowerCase());
  }

  decrypt(blob: Buffer, walletAddress: string): Hex {
    return `0x${this.open(blob, walletAddress.toLowerCase()).toString("hex")}`;
  }

  /** Seals any secret; `context` (associated data) must be given again to open it, so blobs cannot be swapped. */
  seal(plain: Buffer, context: string): Buffer {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", this.key, iv);
    cipher.setAAD(Buffer.from(context));
    const body = Buffer.concat([cipher.update(plain), cipher.final()]);
    return Buffer.concat([iv, cipher.getAuthTag(), body]);
  }

  open(blob: Buffer, context: string): Buffer {
    const iv = blob.subarray(0, IV_BYTES);
    const tag = blob.subarray(IV_BYTES, IV_BYTES + TAG_BYTES);
    const decipher = createDecipheriv("aes-256-gcm", this.key, iv);
    decipher.setAAD(Buffer.from(context));
    decipher.setAuthTag(tag);
    return Buffer.concat([decipher.update(blob.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
  }
}

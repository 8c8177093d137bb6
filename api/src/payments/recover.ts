// Who recovers signatures: inline on the event loop, or a pool of worker threads (see docs/decisions.md).
import type { Address } from "viem";
import { type ParsedSignature, recoverAddress } from "./eip712.ts";

export interface Recoverer {
  recover(digest: Uint8Array, sig: ParsedSignature): Promise<Address>;
  close(): Promise<void>;
}

export class InlineRecoverer implements Recoverer {
  async recover(digest: Uint8Array, sig: ParsedSignature): Promise<Address> {
    return recoverAddress(digest, sig);
  }
  async close(): Promise<void> {}
}

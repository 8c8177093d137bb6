import { BaseError, type Hex } from "viem";

import type { RelayErrorCode } from "./protocol.ts";

export type { RelayErrorCode };

export class RelayError extends Error {
  constructor(
    readonly code: RelayErrorCode,
    message: string,
    readonly errorName?: string,
    readonly txHash?: Hex,
  ) {
    super(message);
  }
}

/** A one-line description of a viem (or any) error, for logs and error bodies. */
export function errorMessage(error: unknown): string {
  return error instanceof BaseError ? error.shortMessage : String((error as Error)?.message ?? error);
}

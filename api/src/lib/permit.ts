import { type Hex, hexToSignature } from "viem";
import { ApiError } from "../errors.ts";

/** Splits a 65-byte EIP-2612 permit signature into (v, r, s); anything else is 400 INVALID_PERMIT. */
export function splitPermitSignature(signature: string): { v: number; r: Hex; s: Hex } {
  try {
    const { r, s, v, yParity } = hexToSignature(signature as Hex);
    return { r, s, v: Number(v ?? BigInt(27 + (yParity ?? 0))) };
  } catch {
    throw new ApiError(400, "INVALID_PERMIT", "the permit signature is malformed");
  }
}

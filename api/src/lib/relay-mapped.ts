// A relayed call whose contract reverts become stable 4xx codes (a race the API's own checks did not foresee).

import { RelayerCallError } from "@agenthub/relayer/client";
import type { RelayResult, RelayScope, RelayTarget } from "@agenthub/relayer/protocol";
import type { Abi, ContractFunctionArgs, ContractFunctionName } from "viem";
import type { Deps } from "../context.ts";
import { type AltCode, apiError, type ErrorCode } from "../errors.ts";

/**
 * A contract's custom error name -> the API's code (its status from the catalogue), or the code with its catalogued
 * `alt` status. One table per contract family, merged with per-call overrides.
 */
export type RevertCodes = Record<string, ErrorCode | { code: AltCode; alt: true }>;

export async function relayMapped<const abi extends Abi, name extends ContractFunctionName<abi, "nonpayable">>(
  deps: Deps,
  target: RelayTarget,
  abi: abi,
  functionName: name,
  args: ContractFunctionArgs<abi, "nonpayable", name>,
  idempotencyKey: string | undefined,
  codes: RevertCodes,
  /** What the request acts for (the relayer refuses a scoped function aimed elsewhere). */
  scope?: RelayScope,
): Promise<RelayResult> {
  try {
    return await deps.relayer.call(target, abi, functionName, args as never, idempotencyKey, scope);
  } catch (error) {
    if (error instanceof RelayerCallError && error.code === "TX_REVERTED" && error.errorName) {
      const mapped = codes[error.errorName];
      if (mapped) {
        const message = `${target}.${functionName} refused: ${error.message}`;
        throw typeof mapped === "string"
          ? apiError(mapped, message, { cause: error })
          : apiError(mapped.code, message, { cause: error, alt: true });
      }
    }
    throw error;
  }
}

// A relayed call whose contract reverts become stable 4xx codes (a race the API's own checks did not foresee).

import type { RelayScope, RelayTarget } from "@agenthub/relayer/allowlist";
import { RelayerCallError } from "@agenthub/relayer/client";
import type { RelayResult } from "@agenthub/relayer/relayer";
import type { Abi, ContractFunctionArgs, ContractFunctionName } from "viem";
import type { Deps } from "../context.ts";
import { ApiError } from "../errors.ts";

export type RevertCodes = Record<string, { status: 400 | 403 | 409 | 429; code: string }>;

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
      if (mapped) throw new ApiError(mapped.status, mapped.code, `${target}.${functionName} refused: ${error.message}`);
    }
    throw error;
  }
}

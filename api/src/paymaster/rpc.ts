// The ERC-7677 JSON-RPC service (pm_getPaymasterStubData, pm_getPaymasterData): one request in, one JSON-RPC answer
// out. Refusals are JSON-RPC errors whose `data.code` is a stable code (docs/decisions.md, "Paymaster").
import { z } from "@hono/zod-openapi";
import type { Address } from "viem";
import type { Deps } from "../context.ts";
import { PolicyRefusal } from "./calls.ts";
import type { PaymasterResult } from "./paymaster.ts";
import { rpcUserOperation } from "./user-operation.ts";

type RpcId = string | number | null;

export interface PaymasterRpcRequest {
  id?: RpcId;
  method: string;
  params?: unknown[];
}

export interface PaymasterRpcAnswer {
  jsonrpc: "2.0";
  id: RpcId;
  result?: PaymasterResult;
  error?: { code: number; message: string; data: { code: string } };
}

/**
 * JSON-RPC error numbers (EIP-1474): invalid params for malformed requests, "transaction rejected" (-32003) for
 * policy refusals, "method not supported" (-32004) without a paymaster. Messages start with the stable code, so
 * clients that only show the message (viem's errors) still name it.
 */
const RPC_CODES: Record<string, number> = {
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_USER_OPERATION: -32602,
  UNSUPPORTED_ENTRY_POINT: -32602,
  UNSUPPORTED_CHAIN: -32602,
  PAYMASTER_DISABLED: -32004,
  INTERNAL_ERROR: -32603,
};
const POLICY_REFUSAL = -32003;

/** params = [userOperation, entryPoint, chainId (hex), context]. */
const paramsSchema = z.tuple([
  rpcUserOperation,
  z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address"),
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,16}$/, "a hex chain id")
    .transform((v) => BigInt(v)),
  z.unknown().optional(),
]);

export function rpcError(id: unknown, code: string, message: string): PaymasterRpcAnswer {
  return {
    jsonrpc: "2.0",
    id: (id ?? null) as RpcId,
    error: { code: RPC_CODES[code] ?? POLICY_REFUSAL, message: `${code}: ${message}`, data: { code } },
  };
}

/** Answers one paymaster request: the sponsorship, or the JSON-RPC error that says why not (counted either way). */
export async function answerPaymasterRpc(
  deps: Pick<Deps, "paymaster" | "logger">,
  { id, method, params }: PaymasterRpcRequest,
): Promise<PaymasterRpcAnswer> {
  const paymaster = deps.paymaster;
  if (!paymaster) return rpcError(id, "PAYMASTER_DISABLED", "no paymaster here: set PAYMASTER_SIGNER_KEY");
  if (method !== "pm_getPaymasterStubData" && method !== "pm_getPaymasterData") {
    return rpcError(id, "METHOD_NOT_FOUND", `unknown method ${method}`);
  }
  const parsed = paramsSchema.safeParse(params ?? []);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `params.${issue.path.join(".")}: ` : "";
    paymaster.count(method, "INVALID_USER_OPERATION");
    return rpcError(id, "INVALID_USER_OPERATION", `${where}${issue?.message ?? "invalid params"}`);
  }
  const [op, entryPoint, chainId] = parsed.data;
  try {
    const result =
      method === "pm_getPaymasterStubData"
        ? await paymaster.stubData(op, entryPoint as Address, chainId)
        : await paymaster.data(op, entryPoint as Address, chainId);
    paymaster.count(method, "sponsored");
    return { jsonrpc: "2.0", id: (id ?? null) as RpcId, result };
  } catch (error) {
    if (!(error instanceof PolicyRefusal)) throw error;
    paymaster.count(method, error.code);
    deps.logger.info(
      { method, code: error.code, sender: op.sender, nonce: op.nonce.toString() },
      "sponsorship refused",
    );
    return rpcError(id, error.code, error.message);
  }
}

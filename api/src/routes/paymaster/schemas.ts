import { z } from "@hono/zod-openapi";

const rpcId = z.union([z.string(), z.number(), z.null()]);

export const rpcRequest = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: rpcId.optional(),
    method: z.string(),
    params: z.array(z.unknown()).optional(),
  })
  .openapi("PaymasterRpcRequest", {
    description: "JSON-RPC 2.0: params = [userOperation, entryPoint, chainId (hex), context]",
  });

export const rpcResponse = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: rpcId,
    result: z
      .object({
        paymaster: z.string(),
        paymasterData: z.string(),
        paymasterVerificationGasLimit: z.string(),
        paymasterPostOpGasLimit: z.string(),
        isFinal: z.boolean().optional(),
        sponsor: z.object({ name: z.string() }).optional(),
      })
      .optional(),
    error: z
      .object({ code: z.number(), message: z.string(), data: z.object({ code: z.string() }).optional() })
      .optional(),
  })
  .openapi("PaymasterRpcResponse");

const wei = z.string().regex(/^\d{1,30}$/, "wei as an unsigned integer string");

export const budgetSchema = z
  .object({
    agentBudgetWei: wei,
    globalBudgetWei: wei,
    periodSeconds: z
      .number()
      .int()
      .min(60)
      .max(366 * 86_400),
  })
  .openapi("PaymasterBudget");

export const budgetAnswer = budgetSchema
  .extend({
    periodStart: z.string(),
    spentWei: z.string(),
    paymaster: z.string(),
    signer: z.string(),
    depositWei: z.string().nullable(),
  })
  .openapi("PaymasterBudgetState");

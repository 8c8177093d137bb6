// Gas sponsorship for agents' UserOperations. POST /api/paymaster speaks ERC-7677 JSON-RPC
// (pm_getPaymasterStubData, pm_getPaymasterData), so standard clients (viem/permissionless `paymaster`) use it as
// is; refusals are JSON-RPC errors whose `data.code` is a stable code (docs/decisions.md, "Paymaster").
// GET/PUT /api/paymaster/budget (admin) read and set the sponsorship budgets.
import { createRoute, z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { Address } from "viem";
import { requireAdmin } from "../../auth/admin.ts";
import type { AppEnv } from "../../context.ts";
import { ApiError } from "../../errors.ts";
import { chainClock } from "../../lib/chain-time.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { PolicyRefusal } from "../../paymaster/calls.ts";
import type { Paymaster } from "../../paymaster/paymaster.ts";
import { rpcUserOperation } from "../../paymaster/user-operation.ts";

const rpcRequest = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]).optional(),
    method: z.string(),
    params: z.array(z.unknown()).optional(),
  })
  .openapi("PaymasterRpcRequest", {
    description: "JSON-RPC 2.0: params = [userOperation, entryPoint, chainId (hex), context]",
  });

const rpcResponse = z
  .object({
    jsonrpc: z.literal("2.0"),
    id: z.union([z.string(), z.number(), z.null()]),
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

const rpc = createRoute({
  method: "post",
  path: "/",
  tags: ["paymaster"],
  summary: "ERC-7677 paymaster web service: sponsors agents' UserOperations (EntryPoint v0.8) within the policy",
  description:
    "Methods pm_getPaymasterStubData and pm_getPaymasterData. Sponsored: calls to AgentHub's agent actions " +
    "(USDC approve to AgentHub, StakeVault deposit/requestWithdrawal/withdraw, RunEscrow claim/start/submit/dispute, " +
    "InsurancePool stake/requestWithdrawal/withdraw) for one registered agent that is neither FROZEN nor BANNED, " +
    "sent by its account, which must run canonical account code (an EOA delegating to Simple7702Account, or a " +
    "SimpleAccount of the canonical factory), within the agent's and the global budget of the period. A refusal " +
    "is a JSON-RPC error with data.code: CALL_NOT_ALLOWED, AGENT_NOT_FOUND, NOT_AGENT_ACCOUNT, " +
    "ACCOUNT_NOT_SUPPORTED, MULTIPLE_AGENTS, AGENT_FROZEN, " +
    "RUN_NOT_FOUND, RUN_NOT_CLAIMED, AGENT_BUDGET_EXCEEDED, GLOBAL_BUDGET_EXCEEDED, GAS_LIMIT_TOO_HIGH, " +
    "GAS_PRICE_TOO_HIGH, UNSUPPORTED_ENTRY_POINT, UNSUPPORTED_CHAIN, INVALID_USER_OPERATION, PAYMASTER_DISABLED.",
  request: { body: jsonBody(rpcRequest) },
  responses: { 200: json(rpcResponse, "JSON-RPC result or error") },
});

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

const paramsSchema = z.tuple([
  rpcUserOperation,
  z.string().regex(/^0x[0-9a-fA-F]{40}$/, "an address"),
  z
    .string()
    .regex(/^0x[0-9a-fA-F]{1,16}$/, "a hex chain id")
    .transform((v) => BigInt(v)),
  z.unknown().optional(),
]);

function rpcError(c: Context<AppEnv>, id: unknown, code: string, message: string) {
  return c.json(
    {
      jsonrpc: "2.0" as const,
      id: (id ?? null) as string | number | null,
      error: { code: RPC_CODES[code] ?? POLICY_REFUSAL, message: `${code}: ${message}`, data: { code } },
    },
    200,
  );
}

const budgetSchema = z
  .object({
    agentBudgetWei: z.string().regex(/^\d{1,30}$/, "wei as an unsigned integer string"),
    globalBudgetWei: z.string().regex(/^\d{1,30}$/, "wei as an unsigned integer string"),
    periodSeconds: z
      .number()
      .int()
      .min(60)
      .max(366 * 86_400),
  })
  .openapi("PaymasterBudget");
const budgetAnswer = budgetSchema
  .extend({
    periodStart: z.string(),
    spentWei: z.string(),
    paymaster: z.string(),
    signer: z.string(),
    depositWei: z.string().nullable(),
  })
  .openapi("PaymasterBudgetState");

const getBudget = createRoute({
  method: "get",
  path: "/budget",
  tags: ["paymaster"],
  summary: "Sponsorship budgets, this period's spending and the deposit (admin)",
  middleware: [requireAdmin] as const,
  responses: { 200: json(budgetAnswer, "Budgets"), ...errorResponses(401, 503) },
});

const putBudget = createRoute({
  method: "put",
  path: "/budget",
  tags: ["paymaster"],
  summary: "Set the per-agent and global sponsorship budgets per period (admin)",
  middleware: [requireAdmin] as const,
  request: { body: jsonBody(budgetSchema) },
  responses: { 200: json(budgetAnswer, "Budgets now in force"), ...errorResponses(400, 401, 503) },
});

function paymasterOf(c: Context<AppEnv>): Paymaster {
  const paymaster = c.get("deps").paymaster;
  if (!paymaster) throw new ApiError(503, "PAYMASTER_DISABLED", "no paymaster here: set PAYMASTER_SIGNER_KEY");
  return paymaster;
}

async function budgetState(c: Context<AppEnv>, paymaster: Paymaster) {
  const budget = await paymaster.budgets.budget();
  const now = await chainClock(c.get("deps")).now();
  const periodStart = now - (now % BigInt(budget.periodSeconds));
  const spent = await paymaster.budgets.spent(periodStart, now);
  const deposit = await paymaster.depositWei().catch(() => null);
  return {
    agentBudgetWei: budget.agentBudgetWei.toString(),
    globalBudgetWei: budget.globalBudgetWei.toString(),
    periodSeconds: budget.periodSeconds,
    periodStart: periodStart.toString(),
    spentWei: spent.global.toString(),
    paymaster: paymaster.address,
    signer: paymaster.signerAddress,
    depositWei: deposit?.toString() ?? null,
  };
}

export const paymasterRoutes = router()
  .openapi(
    rpc,
    async (c) => {
      const { id, method, params } = c.req.valid("json");
      const paymaster = c.get("deps").paymaster;
      if (!paymaster) return rpcError(c, id, "PAYMASTER_DISABLED", "no paymaster here: set PAYMASTER_SIGNER_KEY");
      if (method !== "pm_getPaymasterStubData" && method !== "pm_getPaymasterData") {
        return rpcError(c, id, "METHOD_NOT_FOUND", `unknown method ${method}`);
      }
      const parsed = paramsSchema.safeParse(params ?? []);
      if (!parsed.success) {
        const issue = parsed.error.issues[0];
        const where = issue?.path.length ? `params.${issue.path.join(".")}: ` : "";
        paymaster.count(method, "INVALID_USER_OPERATION");
        return rpcError(c, id, "INVALID_USER_OPERATION", `${where}${issue?.message ?? "invalid params"}`);
      }
      const [op, entryPoint, chainId] = parsed.data;
      try {
        const result =
          method === "pm_getPaymasterStubData"
            ? await paymaster.stubData(op, entryPoint as Address, chainId)
            : await paymaster.data(op, entryPoint as Address, chainId);
        paymaster.count(method, "sponsored");
        return c.json({ jsonrpc: "2.0" as const, id: (id ?? null) as string | number | null, result }, 200);
      } catch (error) {
        if (!(error instanceof PolicyRefusal)) throw error;
        paymaster.count(method, error.code);
        c.get("deps").logger.info(
          { method, code: error.code, sender: op.sender, nonce: op.nonce.toString() },
          "sponsorship refused",
        );
        return rpcError(c, id, error.code, error.message);
      }
    },
    // A body that is not a JSON-RPC request gets a JSON-RPC error too (clients of this route speak nothing else).
    (result, c) => {
      if (!result.success) return rpcError(c, null, "INVALID_REQUEST", "not a JSON-RPC 2.0 request");
    },
  )
  .openapi(getBudget, async (c) => c.json(await budgetState(c, paymasterOf(c)), 200))
  .openapi(putBudget, async (c) => {
    const paymaster = paymasterOf(c);
    const body = c.req.valid("json");
    await paymaster.setBudget({
      agentBudgetWei: BigInt(body.agentBudgetWei),
      globalBudgetWei: BigInt(body.globalBudgetWei),
      periodSeconds: body.periodSeconds,
    });
    return c.json(await budgetState(c, paymaster), 200);
  });

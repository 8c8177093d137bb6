// Gas sponsorship for agents' UserOperations. POST /api/paymaster speaks ERC-7677 JSON-RPC
// (pm_getPaymasterStubData, pm_getPaymasterData), so standard clients (viem/permissionless `paymaster`) use it as
// is; refusals are JSON-RPC errors whose `data.code` is a stable code (docs/decisions.md, "Paymaster").
// GET/PUT /api/paymaster/budget (admin) read and set the sponsorship budgets.
import { createRoute } from "@hono/zod-openapi";
import { requireAdmin } from "../../auth/admin.ts";
import { ADMIN_TOKEN } from "../../auth/security-schemes.ts";
import { router } from "../../lib/openapi.ts";
import { errorResponses, json, jsonBody } from "../../lib/schemas.ts";
import { answerPaymasterRpc, rpcError } from "../../paymaster/rpc.ts";
import { getPaymasterBudget } from "../../use-cases/paymaster/get-budget.ts";
import { setPaymasterBudget } from "../../use-cases/paymaster/set-budget.ts";
import { budgetAnswer, budgetSchema, rpcRequest, rpcResponse } from "./schemas.ts";

const rpc = createRoute({
  method: "post",
  path: "/",
  tags: ["paymaster"],
  summary: "ERC-7677 paymaster web service: sponsors agents' UserOperations (EntryPoint v0.8) within the policy",
  description:
    "Methods pm_getPaymasterStubData and pm_getPaymasterData. Sponsored: calls to AgentHub's agent actions " +
    "(USDC approve to AgentHub, StakeVault deposit/requestWithdrawal/withdraw, RunEscrow claim/start/submit/dispute, " +
    "InsurancePool stake/requestWithdrawal/withdraw) for one registered agent that is neither FROZEN nor BANNED " +
    "and holds the minimum stake (or stakes it in the operation from USDC the sender holds), " +
    "sent by its account, which must run canonical account code (an EOA delegating to Simple7702Account, or a " +
    "SimpleAccount of the canonical factory), with each gas limit within what the operation needs, the sender's " +
    "next nonce (pm_getPaymasterData), within the agent's and the global budget of the period. A refusal " +
    "is a JSON-RPC error with data.code: CALL_NOT_ALLOWED, AGENT_NOT_FOUND, NOT_AGENT_ACCOUNT, " +
    "ACCOUNT_NOT_SUPPORTED, MULTIPLE_AGENTS, AGENT_FROZEN, AGENT_NOT_STAKED, NONCE_NOT_NEXT, " +
    "RUN_NOT_FOUND, RUN_NOT_CLAIMED, AGENT_BUDGET_EXCEEDED, GLOBAL_BUDGET_EXCEEDED, GAS_LIMIT_TOO_HIGH, " +
    "GAS_PRICE_TOO_HIGH, UNSUPPORTED_ENTRY_POINT, UNSUPPORTED_CHAIN, INVALID_USER_OPERATION, PAYMASTER_DISABLED.",
  request: { body: jsonBody(rpcRequest) },
  responses: { 200: json(rpcResponse, "JSON-RPC result or error") },
});

const getBudget = createRoute({
  method: "get",
  path: "/budget",
  tags: ["paymaster"],
  summary: "Sponsorship budgets, this period's spending and the deposit (admin)",
  security: ADMIN_TOKEN,
  middleware: [requireAdmin] as const,
  responses: { 200: json(budgetAnswer, "Budgets"), ...errorResponses(401, 503) },
});

const putBudget = createRoute({
  method: "put",
  path: "/budget",
  tags: ["paymaster"],
  summary: "Set the per-agent and global sponsorship budgets per period (admin)",
  security: ADMIN_TOKEN,
  middleware: [requireAdmin] as const,
  request: { body: jsonBody(budgetSchema) },
  responses: { 200: json(budgetAnswer, "Budgets now in force"), ...errorResponses(400, 401, 503) },
});

export const paymasterRoutes = router()
  .openapi(
    rpc,
    async (c) => c.json(await answerPaymasterRpc(c.get("deps"), c.req.valid("json")), 200),
    // A body that is not a JSON-RPC request gets a JSON-RPC error too (clients of this route speak nothing else).
    (result, c) => {
      if (!result.success) return c.json(rpcError(null, "INVALID_REQUEST", "not a JSON-RPC 2.0 request"), 200);
    },
  )
  .openapi(getBudget, async (c) => c.json(await getPaymasterBudget(c.get("deps")), 200))
  .openapi(putBudget, async (c) => c.json(await setPaymasterBudget(c.get("deps"), c.req.valid("json")), 200));

// Setting the per-agent and global sponsorship budgets per period (admin); the answer is the state now in force.
import type { Deps } from "../../context.ts";
import { budgetState, type PaymasterBudgetState, requirePaymaster } from "./get-budget.ts";

export interface SetPaymasterBudgetParameters {
  /** Wei as unsigned integer strings. */
  agentBudgetWei: string;
  globalBudgetWei: string;
  periodSeconds: number;
}

export async function setPaymasterBudget(
  deps: Pick<Deps, "paymaster" | "clock">,
  p: SetPaymasterBudgetParameters,
): Promise<PaymasterBudgetState> {
  const paymaster = requirePaymaster(deps);
  await paymaster.setBudget({
    agentBudgetWei: BigInt(p.agentBudgetWei),
    globalBudgetWei: BigInt(p.globalBudgetWei),
    periodSeconds: p.periodSeconds,
  });
  return budgetState(deps, paymaster);
}

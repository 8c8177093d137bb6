// The paymaster's sponsorship budgets, what this period has spent, and its EntryPoint deposit (admin).
import type { Deps } from "../../context.ts";
import { apiError } from "../../errors.ts";
import type { Paymaster } from "../../paymaster/paymaster.ts";

export interface PaymasterBudgetState {
  agentBudgetWei: string;
  globalBudgetWei: string;
  periodSeconds: number;
  /** Chain time (unix seconds) the current period began. */
  periodStart: string;
  spentWei: string;
  paymaster: string;
  signer: string;
  /** null when the deposit could not be read. */
  depositWei: string | null;
}

/** The paymaster, or 503 PAYMASTER_DISABLED. */
export function requirePaymaster(deps: Pick<Deps, "paymaster">): Paymaster {
  if (!deps.paymaster) throw apiError("PAYMASTER_DISABLED", "no paymaster here: set PAYMASTER_SIGNER_KEY");
  return deps.paymaster;
}

export async function budgetState(deps: Pick<Deps, "clock">, paymaster: Paymaster): Promise<PaymasterBudgetState> {
  const budget = await paymaster.budgets.budget();
  const now = await deps.clock.now();
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

export function getPaymasterBudget(deps: Pick<Deps, "paymaster" | "clock">): Promise<PaymasterBudgetState> {
  return budgetState(deps, requirePaymaster(deps));
}

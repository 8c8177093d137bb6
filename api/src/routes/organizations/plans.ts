// Organization plans (supplement §8) and the rules that pick and check them. Pure functions (unit tested).

export const PLAN_NAMES = ["starter", "growth", "enterprise"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];
export const ISOLATION_LEVELS = ["none", "schema", "full"] as const;
export type Isolation = (typeof ISOLATION_LEVELS)[number];

export interface Plan {
  requestsPerMinute: number;
  /** null: unlimited */
  agents: number | null;
  members: number | null;
  webhooks: number;
  customDomain: boolean;
  isolation: readonly Isolation[];
  /** Published but not enforced: counted in stats only. */
  paymentsPerDay: number | null;
  apiCallsPerMonth: number | null;
}

// Enterprise is "custom" in the spec; these are the defaults until a contract says otherwise.
export const PLANS: Record<PlanName, Plan> = {
  starter: {
    requestsPerMinute: 100,
    agents: 10,
    members: 3,
    webhooks: 5,
    customDomain: false,
    isolation: ["none"],
    paymentsPerDay: 1_000,
    apiCallsPerMonth: 10_000,
  },
  growth: {
    requestsPerMinute: 1_000,
    agents: 100,
    members: 10,
    webhooks: 20,
    customDomain: true,
    isolation: ["none", "schema"],
    paymentsPerDay: 10_000,
    apiCallsPerMonth: 100_000,
  },
  enterprise: {
    requestsPerMinute: 10_000,
    agents: null,
    members: null,
    webhooks: 100,
    customDomain: true,
    isolation: ["none", "schema", "full"],
    paymentsPerDay: null,
    apiCallsPerMonth: null,
  },
};

export type PlanDecision =
  | { ok: true; plan: PlanName }
  | { ok: false; code: "ISOLATION_NOT_AVAILABLE" | "PLAN_LIMIT_REACHED"; message: string };

/**
 * The plan of a new organization. An explicit plan must allow what is asked. Without one, the cheapest
 * self-service plan that allows it is chosen (starter; growth for schema isolation or a custom domain). Full
 * isolation needs a dedicated instance and a contract, so it is only accepted with an explicit enterprise plan.
 */
export function choosePlan(input: { plan?: PlanName; isolation: Isolation; customDomain: boolean }): PlanDecision {
  if (input.plan) {
    const p = PLANS[input.plan];
    if (!p.isolation.includes(input.isolation)) {
      return {
        ok: false,
        code: "ISOLATION_NOT_AVAILABLE",
        message: `isolation "${input.isolation}" is not available on the ${input.plan} plan${input.isolation === "full" ? " (full isolation needs the enterprise plan)" : ""}`,
      };
    }
    if (input.customDomain && !p.customDomain) {
      return { ok: false, code: "PLAN_LIMIT_REACHED", message: `the ${input.plan} plan has no custom domain` };
    }
    return { ok: true, plan: input.plan };
  }
  if (input.isolation === "full") {
    return {
      ok: false,
      code: "ISOLATION_NOT_AVAILABLE",
      message: 'isolation "full" (a dedicated database instance) needs the enterprise plan: pass plan "enterprise"',
    };
  }
  return { ok: true, plan: input.isolation === "schema" || input.customDomain ? "growth" : "starter" };
}

/** Whether one more item fits under `limit` (null = unlimited). */
export const underLimit = (count: number, limit: number | null) => limit === null || count < limit;

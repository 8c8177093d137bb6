// Organization plans (supplement §8), their quotas, and the rules that pick and check them. Pure functions (unit tested).

export const PLAN_NAMES = ["starter", "growth", "enterprise"] as const;
export type PlanName = (typeof PLAN_NAMES)[number];
/** Member roles (supplement §2): admin everything; developer API use and analytics; viewer read-only. */
export const ROLES = ["admin", "developer", "viewer"] as const;
export type Role = (typeof ROLES)[number];
export const ISOLATION_LEVELS = ["none", "schema", "full"] as const;
export type Isolation = (typeof ISOLATION_LEVELS)[number];

export interface Plan {
  requestsPerMinute: number;
  /** null: unlimited */
  agents: number | null;
  members: number | null;
  webhooks: number;
  customDomain: boolean;
  /** Isolation levels the plan offers ("full" is listed for enterprise but refused until dedicated instances exist). */
  isolation: readonly Isolation[];
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
  | {
      ok: false;
      code: "ISOLATION_NOT_AVAILABLE" | "ISOLATION_UNAVAILABLE" | "PLAN_LIMIT_REACHED";
      message: string;
    };

/**
 * The plan of a new organization. An explicit plan must allow what is asked. Without one, the cheapest
 * self-service plan that allows it is chosen (starter; growth for schema isolation or a custom domain). Full
 * isolation (a dedicated database instance) is not offered by this deployment on any plan: it is refused (422
 * ISOLATION_UNAVAILABLE) rather than stored and reported without being in force.
 */
export function choosePlan(input: { plan?: PlanName; isolation: Isolation; customDomain: boolean }): PlanDecision {
  if (input.isolation === "full") {
    return {
      ok: false,
      code: "ISOLATION_UNAVAILABLE",
      message:
        'isolation "full" (a dedicated database instance per organization) is not available on this deployment; use "schema" (row-level security, growth plan and above) or "none"',
    };
  }
  if (input.plan) {
    const p = PLANS[input.plan];
    if (!p.isolation.includes(input.isolation)) {
      return {
        ok: false,
        code: "ISOLATION_NOT_AVAILABLE",
        message: `isolation "${input.isolation}" is not available on the ${input.plan} plan (schema isolation needs growth or enterprise)`,
      };
    }
    if (input.customDomain && !p.customDomain) {
      return {
        ok: false,
        code: "PLAN_LIMIT_REACHED",
        message: `the ${input.plan} plan has no custom domain`,
      };
    }
    return { ok: true, plan: input.plan };
  }
  return { ok: true, plan: input.isolation === "schema" || input.customDomain ? "growth" : "starter" };
}

/** Whether one more item fits under `limit` (null = unlimited). */
export const underLimit = (count: number, limit: number | null) => limit === null || count < limit;

export type QuotaKind = "calls" | "payments";

export interface QuotaDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix seconds when the period ends. */
  reset: number;
  /** Unix seconds when the period started (to give a slot back). */
  periodStart: number;
}

/** The quotas in force for an organization: its own values, else its plan's (null: unlimited). */
export function effectiveQuotas(
  plan: PlanName,
  own: { paymentsPerDay: number | null; apiCallsPerMonth: number | null },
): { paymentsPerDay: number | null; apiCallsPerMonth: number | null } {
  return {
    paymentsPerDay: own.paymentsPerDay ?? PLANS[plan].paymentsPerDay,
    apiCallsPerMonth: own.apiCallsPerMonth ?? PLANS[plan].apiCallsPerMonth,
  };
}

/** The UTC period (month for calls, day for payments) holding `nowMs`: [start, end) in unix seconds. */
export function quotaPeriod(kind: QuotaKind, nowMs: number): { start: number; end: number } {
  const d = new Date(nowMs);
  if (kind === "payments") {
    const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    return { start: start / 1000, end: start / 1000 + 86_400 };
  }
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { start: start / 1000, end: end / 1000 };
}

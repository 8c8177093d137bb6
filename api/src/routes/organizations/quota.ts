// The agent quota of an organization's plan, checked under a lock on the organization row in the transaction that
// inserts the agent's wallet row, so concurrent registrations cannot overshoot it.
import type pg from "pg";
import { ApiError } from "../../errors.ts";
import { PLANS, type PlanName, underLimit } from "./plans.ts";

export async function reserveOrgAgentSlot(client: pg.PoolClient, orgId: string): Promise<void> {
  const org = await client.query<{ plan: PlanName }>("select plan from api.organization where id = $1 for update", [
    orgId,
  ]);
  const plan = org.rows[0]?.plan;
  if (!plan) throw new ApiError(404, "ORGANIZATION_NOT_FOUND", `organization ${orgId} does not exist`);
  const limit = PLANS[plan].agents;
  if (limit === null) return;
  const { rows } = await client.query<{ n: number }>("select count(*)::int n from api.agent_wallet where org_id = $1", [
    orgId,
  ]);
  if (!underLimit(rows[0]!.n, limit)) {
    throw new ApiError(
      403,
      "PLAN_LIMIT_REACHED",
      `the ${plan} plan allows ${limit} agents per organization; upgrade the plan to register more`,
    );
  }
}

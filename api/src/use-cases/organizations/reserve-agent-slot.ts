// The agent quota of an organization's plan, checked under a lock on the organization row in the transaction that
// inserts the agent's wallet row, so concurrent registrations cannot overshoot it.
import type pg from "pg";
import { createDb } from "../../db/index.ts";
import { PLANS, underLimit } from "../../domain/plans.ts";
import { apiError } from "../../errors.ts";
import { countOrgWallets } from "../../stores/agent-wallets.ts";
import { lockOrg } from "../../stores/organizations.ts";
import { organizationNotFound } from "./get-organization.ts";

export async function reserveOrgAgentSlot(client: pg.PoolClient, orgId: string): Promise<void> {
  const plan = await lockOrg(createDb(client), orgId);
  if (!plan) throw organizationNotFound(orgId);
  const limit = PLANS[plan].agents;
  if (limit === null) return;
  if (!underLimit(await countOrgWallets(client, orgId), limit)) {
    throw apiError(
      "PLAN_LIMIT_REACHED",
      `the ${plan} plan allows ${limit} agents per organization; upgrade the plan to register more`,
    );
  }
}

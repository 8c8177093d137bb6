// Team members (supplement §2): the rules every member change shares. An organization keeps at least one admin
// member once it has one (LAST_ADMIN); member changes run under a lock on the organization row, so concurrent
// changes cannot remove or demote every admin.
import type pg from "pg";
import type { Deps } from "../../context.ts";
import { createDb, type Db } from "../../db/index.ts";
import { withTransaction } from "../../db/transaction.ts";
import type { PlanName } from "../../domain/plans.ts";
import { apiError } from "../../errors.ts";
import { countMembers, type MemberRow } from "../../stores/org-members.ts";
import { lockOrg } from "../../stores/organizations.ts";
import { organizationNotFound } from "./get-organization.ts";

export type MemberDeps = Pick<Deps, "pool">;

export const memberNotFound = (id: string) => apiError("MEMBER_NOT_FOUND", `member ${id} does not exist`);

/** Runs `fn` in a transaction holding the organization row's lock. */
export function withOrgLocked<T>(
  deps: MemberDeps,
  orgId: string,
  fn: (tx: Db, client: pg.PoolClient, plan: PlanName) => Promise<T>,
): Promise<T> {
  return withTransaction(deps.pool, async (client) => {
    const tx = createDb(client);
    const plan = await lockOrg(tx, orgId);
    if (!plan) throw organizationNotFound(orgId);
    return fn(tx, client, plan);
  });
}

/** Refuses to take the admin role from the organization's last admin member. */
export async function assertKeepsAnAdmin(tx: Db, member: MemberRow): Promise<void> {
  if (member.role === "admin" && (await countMembers(tx, member.orgId, "admin")) <= 1) {
    throw apiError("LAST_ADMIN", "an organization keeps at least one admin");
  }
}

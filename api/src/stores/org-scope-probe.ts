// Local chains only (GET /api/dev/org-scope): deliberately unfiltered queries over every organization-owned table
// through the request's own pool, so a test can see what a query that forgets its organization filter reaches under
// the caller's scope (docs/decisions.md, "Organization isolation").
import type { Deps } from "../context.ts";

/** Each organization-owned table and the organization of each of its rows, with no WHERE clause. */
const UNFILTERED = {
  organization: "select id org from api.organization",
  org_credential: "select org_id org from api.org_credential",
  org_member: "select org_id org from api.org_member",
  org_usage: "select org_id org from api.org_usage",
  org_webhook: "select org_id org from api.org_webhook",
  org_event: "select org_id org from api.org_event",
  webhook_delivery:
    "select (select h.org_id from api.org_webhook h where h.id = d.webhook_id) org from api.webhook_delivery d",
  agent_wallet: "select org_id org from api.agent_wallet",
  run_org: "select org_id org from api.run_org",
} as const;

/** The database role and organization setting of this connection, and each table's rows' organizations. */
export async function probeOrgScope(deps: Pick<Deps, "pool">) {
  const who = await deps.pool.query<{ role: string; org: string | null }>(
    "select current_user::text role, nullif(current_setting('app.org_id', true), '') org",
  );
  const tables: Record<string, (string | null)[]> = {};
  for (const [table, sql] of Object.entries(UNFILTERED)) {
    tables[table] = (await deps.pool.query<{ org: string | null }>(sql)).rows.map((r) => r.org);
  }
  return { role: who.rows[0]!.role, orgSetting: who.rows[0]!.org, tables };
}

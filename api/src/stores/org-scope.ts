// SQL fragments that scope lists and aggregates to an organization (supplement §4: with an organization's key,
// list calls are scoped to it). An organization's agents are those registered under it; its runs are those its
// agents work on or post (as the agent's generated wallet or its owner). `param` is the placeholder holding the
// organization id, e.g. "$3"; `agentView` is the indexer's agent view (deps.views.names.agent).
import { type SQL, sql } from "drizzle-orm";

export const orgAgentIds = (param: string) =>
  `(select w.agent_id from api.agent_wallet w where w.org_id = ${param} and w.agent_id is not null)`;

/**
 * Discovery lists (search, leaderboard) also show the agents of organizations sharing reputation with this one,
 * as GET /api/agents does (api.visible_orgs, migration 151).
 */
export const visibleAgentIds = (param: string) =>
  `(select w.agent_id from api.agent_wallet w
     where w.org_id in (select api.visible_orgs(${param})) and w.agent_id is not null)`;

/** Lower-cased addresses that speak for the organization's agents (generated wallets and owners). */
export const orgAddresses = (agentView: string, param: string) =>
  `(select lower(a.wallet) from ${agentView} a where a.id in ${orgAgentIds(param)}
    union select lower(a.owner) from ${agentView} a where a.id in ${orgAgentIds(param)})`;

/** A run (escrow row `run`, its poster column `poster`) belongs to the organization. */
export const orgRunCondition = (agentView: string, param: string, agentCol: string, posterCol: string) =>
  `(${agentCol} in ${orgAgentIds(param)} or lower(${posterCol}) in ${orgAddresses(agentView, param)})`;

/** orgAddresses for drizzle queries: the organization id is a bound parameter. */
export const orgAddressesSql = (agentView: string, orgId: string): SQL => {
  const agentIds = sql`(select w.agent_id from api.agent_wallet w where w.org_id = ${orgId} and w.agent_id is not null)`;
  const view = sql.raw(agentView);
  return sql`(select lower(a.wallet) from ${view} a where a.id in ${agentIds}
    union select lower(a.owner) from ${view} a where a.id in ${agentIds})`;
};

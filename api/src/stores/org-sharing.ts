// Reputation sharing (supplement §4; docs/decisions.md "Reputation sharing"): the organizations whose agents, with
// their reputation, an organization's scoped views show besides its own. Organization A's agents reach organization
// B when A shares outbound, B accepts inbound, and each side's whitelist (when not empty) names the other. The rule
// lives in SQL (api.visible_orgs, migration 151) so row-level security can use it too.
import type { Deps } from "../context.ts";

/** The organization itself first, then every organization sharing with it, by id. */
export async function visibleOrgIds(deps: Pick<Deps, "pool">, viewer: string): Promise<string[]> {
  const { rows } = await deps.pool.query<{ id: string }>("select id from api.visible_orgs($1) id", [viewer]);
  return [viewer, ...rows.map((r) => r.id).filter((id) => id !== viewer)];
}

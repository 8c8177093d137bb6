// One page of a white-label site's agent directory, optionally of one capability.
import type { Deps } from "../../context.ts";
import { statusOf } from "../../stores/agents.ts";
import { orgDirectoryPage } from "./org-directory.ts";

export interface SiteDirectoryRow {
  id: number;
  name: string;
  status: string;
  score: number;
  capabilities: string[];
  organization: string;
}

export interface SiteDirectoryParameters {
  orgId: string;
  capability: string | null;
  /** From 1. */
  page: number;
  pageSize: number;
}

export async function siteDirectory(
  deps: Pick<Deps, "pool" | "views" | "clock" | "params">,
  p: SiteDirectoryParameters,
): Promise<{ rows: SiteDirectoryRow[]; total: number }> {
  const [found, now, { minStake }] = await Promise.all([
    orgDirectoryPage(deps, {
      orgId: p.orgId,
      capabilities: p.capability === null ? [] : [p.capability],
      domain: null,
      limit: p.pageSize,
      offset: (p.page - 1) * p.pageSize,
    }),
    deps.clock.now(),
    deps.params.current(),
  ]);
  const rows = found.agents.map(({ record, orgId }) => ({
    id: record.id,
    name: record.profile.name,
    status: statusOf(record, now, minStake),
    score: record.score,
    capabilities: record.profile.capabilities,
    organization: orgId,
  }));
  return { rows, total: found.total };
}

// Uptime: one scheduled pass per UPTIME_INTERVAL_SECONDS splits the agents that publish endpoints.webhook into
// batch jobs; any API process may run a batch. A batch pings its agents (bounded concurrency), records each
// check once per pass (a retried batch cannot count twice), folds it into per-day aggregates, and recomputes the
// batch's reputation (the spec's "on each uptime check" trigger).
import type { Deps } from "../context.ts";
import { chainClock } from "../lib/chain-time.ts";
import { checkEndpoint, mapLimit } from "../lib/net/health-check.ts";
import { recomputeAgents } from "../stores/reputation-recompute.ts";
import { recordUptimeChecks, uptimeTargets, webhookEndpoints } from "../stores/uptime.ts";

export interface UptimeBatch {
  roundId: string;
  agentIds: number[];
}

export const allowPrivateTargets = (deps: Deps) => deps.env.ALLOW_PRIVATE_UPTIME_TARGETS ?? deps.env.LOCAL_CHAIN;

/** The batches of one pass, in agent id order. */
export async function planUptimePass(deps: Deps, roundId: string): Promise<UptimeBatch[]> {
  const ids = await uptimeTargets(deps);
  const size = deps.env.UPTIME_BATCH_SIZE;
  const batches: UptimeBatch[] = [];
  for (let i = 0; i < ids.length; i += size) batches.push({ roundId, agentIds: ids.slice(i, i + size) });
  return batches;
}

export async function runUptimeBatch(deps: Deps, batch: UptimeBatch): Promise<{ checked: number; up: number }> {
  const targets = await webhookEndpoints(deps, batch.agentIds);
  const opts = { timeoutMs: deps.env.UPTIME_TIMEOUT_MS, allowPrivate: allowPrivateTargets(deps) };
  const results = await mapLimit(targets, deps.env.UPTIME_CONCURRENCY, async (t) => ({
    agentId: t.agentId,
    ...(await checkEndpoint(t.webhook, opts)),
  }));
  if (results.length === 0) return { checked: 0, up: 0 };
  const now = await chainClock(deps).now();
  await recordUptimeChecks(deps, batch.roundId, new Date(Number(now) * 1000), results);
  await recomputeAgents(
    deps,
    results.map((r) => r.agentId),
    "uptime",
    now,
  );
  return { checked: results.length, up: results.filter((r) => r.up).length };
}

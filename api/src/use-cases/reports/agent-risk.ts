// An agent's risk: its reports weighted by reporter kind and age (domain/report-risk.ts) with its chain status.
import type { Deps } from "../../context.ts";
import { computeRisk } from "../../domain/report-risk.ts";
import { type AgentRecord, statusOf } from "../../stores/agents.ts";
import { riskInputs } from "../../stores/reports.ts";

export async function agentRisk(deps: Deps, agent: AgentRecord) {
  const [now, { minStake }] = await Promise.all([deps.clock.now(), deps.params.current()]);
  const chainStatus = statusOf(agent, now, minStake);
  const reports = await riskInputs(deps, agent.id, minStake);
  const risk = computeRisk(reports, Number(now), chainStatus);
  return {
    agentId: agent.id,
    status: risk.status,
    riskScore: risk.riskScore,
    chainStatus,
    distinctReporters: new Set(reports.filter((r) => r.status !== "DISMISSED").map((r) => r.reporter)).size,
    pending: reports.filter((r) => r.status === "PENDING").length,
    confirmed: risk.confirmed,
    dismissed: reports.filter((r) => r.status === "DISMISSED").length,
    total: reports.length,
  };
}

// The agent page: the agent with its slash history (through the read cache) and what its status is judged by now.
import type { Deps } from "../../context.ts";
import { type AgentRecord, findAgentDetail, type SlashEntry } from "../../stores/agents.ts";
import { foundAgent } from "../guards.ts";

export interface GetAgentReturnType {
  agent: AgentRecord;
  slashes: SlashEntry[];
  /** Chain time and the protocol's minimum stake, for the agent's status. */
  now: bigint;
  minStake: bigint;
}

export async function getAgent(
  deps: Pick<Deps, "pool" | "views" | "reads" | "clock" | "params">,
  { id }: { id: number },
): Promise<GetAgentReturnType> {
  const [found, now, { minStake }] = await Promise.all([
    findAgentDetail(deps, id),
    deps.clock.now(),
    deps.params.current(),
  ]);
  return { ...foundAgent(found, id), now, minStake };
}

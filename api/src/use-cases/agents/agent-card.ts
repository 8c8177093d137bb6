// The agent's A2A agent card (protocol 0.3.0): its skills from the profile, its endpoint, its on-chain registration.
import type { Deps } from "../../context.ts";
import { requireAgent } from "../guards.ts";

export async function agentCard(
  deps: Pick<Deps, "pool" | "views" | "env" | "deployments">,
  { id }: { id: number },
): Promise<Record<string, unknown>> {
  const agent = await requireAgent(deps, id);
  const base = deps.env.PUBLIC_URL;
  return {
    protocolVersion: "0.3.0",
    name: agent.profile.name,
    description: agent.profile.description,
    url: agent.profile.endpoints.a2a ?? agent.profile.endpoints.webhook ?? `${base}/api/agents/${id}`,
    version: "1.0.0",
    provider: { organization: "AgentHub", url: base },
    capabilities: { streaming: false, pushNotifications: Boolean(agent.profile.endpoints.webhook) },
    defaultInputModes: ["application/json"],
    defaultOutputModes: ["application/json"],
    skills: agent.profile.capabilities.map((cap) => ({
      id: cap,
      name: cap,
      tags: [...agent.profile.domains, ...agent.profile.tools],
    })),
    registrations: [
      {
        agentId: id,
        agentRegistry: `eip155:${deps.deployments.chainId}:${deps.deployments.contracts.AgentIdentity.address}`,
      },
    ],
    registrationFile: agent.metadataUri,
  };
}

// The agent's registration file: ERC-8004 registration-v1 fields plus AgentHub's profile fields.
export interface ProfileInput {
  name: string;
  description?: string;
  capabilities?: string[];
  programmingLangs?: string[];
  domains?: string[];
  tools?: string[];
  endpoints?: Record<string, string | undefined>;
  image?: string;
}

export function registrationFile(profile: ProfileInput, agentId: number, identityAddress: string, chainId: number) {
  const endpoints = Object.fromEntries(Object.entries(profile.endpoints ?? {}).filter(([, v]) => v)) as Record<
    string,
    string
  >;
  return {
    type: "https://eips.ethereum.org/EIPS/eip-8004#registration-v1",
    name: profile.name,
    description: profile.description ?? "",
    image: profile.image ?? "",
    services: Object.entries(endpoints).map(([name, endpoint]) => ({ name, endpoint })),
    registrations: [{ agentId, agentRegistry: `eip155:${chainId}:${identityAddress}` }],
    supportedTrust: ["reputation", "crypto-economic"],
    capabilities: profile.capabilities ?? [],
    programmingLangs: profile.programmingLangs ?? [],
    domains: profile.domains ?? [],
    tools: profile.tools ?? [],
    endpoints,
  };
}

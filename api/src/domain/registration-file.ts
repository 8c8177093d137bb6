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

/**
 * At registration the token id is not known yet (it comes from the mint's event), so that first file lists no
 * `registrations`; every later file (profile updates) names the agent's id in this registry.
 */
export function registrationFile(profile: ProfileInput, identityAddress: string, chainId: number, agentId?: number) {
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
    registrations: agentId === undefined ? [] : [{ agentId, agentRegistry: `eip155:${chainId}:${identityAddress}` }],
    supportedTrust: ["reputation", "crypto-economic"],
    capabilities: profile.capabilities ?? [],
    programmingLangs: profile.programmingLangs ?? [],
    domains: profile.domains ?? [],
    tools: profile.tools ?? [],
    endpoints,
  };
}

/** The profile a registration file carries (the inverse of registrationFile for AgentHub's own fields). */
export function profileOfRegistrationFile(file: ReturnType<typeof registrationFile>): Required<ProfileInput> {
  return {
    name: file.name,
    description: file.description,
    capabilities: file.capabilities,
    programmingLangs: file.programmingLangs,
    domains: file.domains,
    tools: file.tools,
    endpoints: file.endpoints,
    image: file.image,
  };
}

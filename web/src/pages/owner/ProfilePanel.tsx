// Profile editing: the owner signs an update-profile request (EIP-4361); the API stores the new profile and
// publishes it (the identity token's URI follows).
import type { ProfileChanges } from "@agenthub/sdk";
import { useState } from "react";
import { Explained } from "../../flows/Explained.tsx";
import { capabilityList, ProfileFields, type ProfileText } from "../../flows/Fields.tsx";
import { FlowStatus } from "../../flows/FlowStatus.tsx";
import { useFlow } from "../../flows/useFlow.ts";

interface Profile {
  id: number;
  name: string;
  description: string;
  capabilities: string[];
}

export function ProfilePanel({ agent }: { agent: Profile }) {
  const [profile, setProfile] = useState<ProfileText>({
    name: agent.name,
    description: agent.description,
    capabilities: agent.capabilities.join(", "),
  });
  const flow = useFlow<unknown>();
  const changes = (): ProfileChanges => ({
    name: profile.name.trim(),
    description: profile.description.trim(),
    capabilities: capabilityList(profile.capabilities),
  });
  return (
    <section className="panel" aria-labelledby="profile">
      <h2 id="profile">Profile</h2>
      <ProfileFields value={profile} onChange={setProfile} />
      <Explained
        label="Save profile"
        disabled={!profile.name.trim() || flow.status === "running"}
        explain={() => ({
          title: `Update agent #${agent.id}'s profile`,
          lines: [
            `Your wallet signs a message (update-profile for agent #${agent.id}) valid for a few minutes: it authorises this one profile change.`,
            "AgentHub stores the new profile and publishes it; the identity token points at it.",
          ],
          cost: "free (no gas)",
        })}
        onConfirm={() => void flow.run((w) => w.hub.agents.update(agent.id, changes(), w.signer))}
      />
      <FlowStatus flow={flow} done={() => <p>Profile saved.</p>} />
    </section>
  );
}

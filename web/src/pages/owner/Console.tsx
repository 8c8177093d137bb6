// An agent owner's console: the agent's stake (gasless permit, two-phase withdrawal), its insurance coverage, runs to
// take and the agent's own runs (claim, start, submit a text or a file, revisions asked for, payouts), and its profile.
// Every write is signed by the connected wallet, which must own the agent's identity token.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { ErrorNote, Loading } from "../../components/Status.tsx";
import { ConnectFirst } from "../../flows/Explained.tsx";
import { shortAddress } from "../../format.ts";
import { hub } from "../../hub.ts";
import { useWallet } from "../../wallet/state.tsx";
import { InsurancePanel } from "./InsurancePanel.tsx";
import { ProfilePanel } from "./ProfilePanel.tsx";
import { AgentRuns, OpenRuns } from "./RunsPanel.tsx";
import { StakePanel } from "./StakePanel.tsx";

export function ConsolePage() {
  const { agentId } = useParams({ from: "/console/$agentId" });
  const id = Number(agentId);
  const { wallet } = useWallet();
  const agent = useQuery({
    queryKey: ["agent", id],
    queryFn: () => hub.agents.get(id),
    enabled: Number.isSafeInteger(id),
  });
  if (!Number.isSafeInteger(id) || id < 0)
    return <ErrorNote error={new Error(`"${agentId}" is not an agent number`)} />;
  if (agent.isPending) return <Loading what="the agent" />;
  if (!agent.data) return <ErrorNote error={agent.error} />;
  const a = agent.data;
  const owns = wallet !== null && wallet.address.toLowerCase() === a.ownerAddress.toLowerCase();
  return (
    <>
      <h1>Console: {a.name || `Agent #${a.id}`}</h1>
      <p>
        Agent #{a.id} · owner <code title={a.ownerAddress}>{shortAddress(a.ownerAddress)}</code> ·{" "}
        <Link to="/agents/$agentId" params={{ agentId: String(a.id) }}>
          public page
        </Link>
      </p>
      <ConnectFirst to="act for this agent (the wallet that owns it signs)" />
      {wallet && !owns ? (
        <p className="note" role="note">
          The connected wallet ({shortAddress(wallet.address)}) does not own agent #{a.id}: the API refuses what it
          signs here. Connect the owner's wallet ({shortAddress(a.ownerAddress)}).
        </p>
      ) : null}
      <StakePanel agentId={a.id} />
      <AgentRuns agentId={a.id} />
      <OpenRuns agentId={a.id} />
      <InsurancePanel agentId={a.id} />
      <ProfilePanel agent={a} />
    </>
  );
}

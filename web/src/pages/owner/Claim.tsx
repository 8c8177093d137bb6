// The claim link (claimURL, /claim/<code>): shows what the code points at, has the connected wallet sign
// "I claim agent N to address X" (EIP-191, free), and shows the agent wallet's private key once. The page is the
// app's own HTML (the same bytes for every code, no inline script, CSP 'self'): the code is read from the URL here
// and sent only to this origin's API; the key lives in this page's memory until it is left.
import { useQuery } from "@tanstack/react-query";
import { Link, useParams } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorNote, Loading } from "../../components/Status.tsx";
import { ConnectFirst, Explained } from "../../flows/Explained.tsx";
import { FlowStatus } from "../../flows/FlowStatus.tsx";
import { useFlow } from "../../flows/useFlow.ts";
import { dateTime } from "../../format.ts";
import { hub } from "../../hub.ts";
import { useWallet } from "../../wallet/state.tsx";

export function ClaimPage() {
  const { claimCode } = useParams({ from: "/claim/$claimCode" });
  const { wallet } = useWallet();
  const info = useQuery({
    queryKey: ["claim-info", claimCode],
    queryFn: () => hub.agents.claimInfo(claimCode),
    retry: 0,
  });
  const flow = useFlow<Awaited<ReturnType<typeof hub.agents.claim>>>();
  const [copied, setCopied] = useState(false);

  const claimed = flow.status === "done" ? flow.result : undefined;
  if (claimed) {
    return (
      <>
        <h1>Agent #{claimed.agentId} is yours</h1>
        <p>
          The identity token moved to <code>{claimed.ownerAddress}</code>.
        </p>
        <section className="panel warn" aria-labelledby="agent-key">
          <h2 id="agent-key">The agent wallet's private key</h2>
          <p>
            <strong>Save it now: it is shown only once.</strong> AgentHub erases its copy (
            {dateTime(claimed.keyErasedAt)}). Your agent signs its own work with it; you keep the identity token in your
            wallet.
          </p>
          <p>
            <code className="secret" id="private-key">
              {claimed.privateKey}
            </code>
          </p>
          <button
            type="button"
            className="secondary"
            onClick={async () => {
              await navigator.clipboard.writeText(claimed.privateKey);
              setCopied(true);
            }}
          >
            {copied ? "Copied" : "Copy the key"}
          </button>
          <p>
            Agent wallet <code>{claimed.walletAddress}</code>
          </p>
        </section>
        <p>
          Next:{" "}
          <Link to="/console/$agentId" params={{ agentId: String(claimed.agentId) }}>
            open agent #{claimed.agentId}'s console
          </Link>{" "}
          to stake, take runs and edit its profile.
        </p>
      </>
    );
  }

  return (
    <>
      <h1>Claim your agent</h1>
      {info.isPending ? <Loading what="the claim link" /> : null}
      {info.error ? (
        <>
          <p>This claim link cannot be used.</p>
          <ErrorNote error={info.error} />
        </>
      ) : null}
      {info.data ? (
        <section className="panel" aria-labelledby="claim-what">
          <h2 id="claim-what">Agent #{info.data.agentId}</h2>
          <dl className="facts-grid">
            <dt>Agent wallet</dt>
            <dd>
              <code>{info.data.walletAddress}</code>
            </dd>
            <dt>Profile</dt>
            <dd>
              <code>{info.data.ipfsHash}</code>
            </dd>
            <dt>Claim before</dt>
            <dd>{dateTime(info.data.expiresAt)}</dd>
          </dl>
          <ConnectFirst to="claim this agent" />
          <Explained
            label={`Claim agent #${info.data.agentId}`}
            disabled={flow.status === "running"}
            explain={() =>
              wallet && info.data
                ? {
                    title: `Claim agent #${info.data.agentId}`,
                    lines: [
                      `Your wallet signs the text "I claim agent ${info.data.agentId} to address ${wallet.address}".`,
                      "It authorises AgentHub to move the agent's identity token to your address and to show you the agent wallet's private key, once.",
                      "It is a message, not a transaction: nothing else can be done with it.",
                    ],
                    cost: "free (no gas, no USDC)",
                  }
                : null
            }
            onConfirm={() =>
              void flow.run((w) => w.hub.agents.claim(info.data.agentId, { claimCode, signer: w.signer }))
            }
          />
          <FlowStatus flow={flow} />
        </section>
      ) : null}
    </>
  );
}

// Register an agent: the platform generates the agent's wallet and mints its identity token (gasless: nothing to
// sign, nothing to pay). The answer's claim code is shown once, with the link to claim the agent to a wallet.
import type { AgentProfile } from "@agenthub/sdk";
import { Link } from "@tanstack/react-router";
import { useState } from "react";
import { ErrorNote } from "../../components/Status.tsx";
import { capabilityList, ProfileFields, type ProfileText } from "../../flows/Fields.tsx";
import { hub } from "../../hub.ts";

type Registered = Awaited<ReturnType<typeof hub.agents.register>>;

export function RegisterPage() {
  const [profile, setProfile] = useState<ProfileText>({ name: "", description: "", capabilities: "" });
  const [endpoint, setEndpoint] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<Registered | null>(null);

  if (done) {
    return (
      <>
        <h1>Agent #{done.agentId} is registered</h1>
        <section className="panel warn" aria-labelledby="claim-code">
          <h2 id="claim-code">Your claim code (shown only now)</h2>
          <p>
            Anyone with this code can claim the agent until it is claimed. Claim it now to your own wallet, or keep the
            link somewhere safe.
          </p>
          <p>
            <code className="secret">{done.claimCode}</code>
          </p>
          <p>
            <Link to="/claim/$claimCode" params={{ claimCode: done.claimCode }} className="button">
              Claim agent #{done.agentId} now
            </Link>
          </p>
        </section>
        <dl className="facts-grid">
          <dt>Agent wallet</dt>
          <dd>
            <code>{done.walletAddress}</code>
          </dd>
          <dt>Status</dt>
          <dd>unverified (stake to take paid runs)</dd>
        </dl>
      </>
    );
  }

  return (
    <>
      <h1>Register an agent</h1>
      <p>
        AgentHub creates the agent's wallet and mints its on-chain identity for you: free, no wallet needed yet. You
        then claim it to your own wallet with the code this page shows once.
      </p>
      <form
        className="panel"
        onSubmit={async (e) => {
          e.preventDefault();
          setBusy(true);
          setError(null);
          try {
            const capabilities = capabilityList(profile.capabilities);
            const body: AgentProfile = {
              name: profile.name.trim(),
              ...(profile.description.trim() ? { description: profile.description.trim() } : {}),
              ...(capabilities.length ? { capabilities } : {}),
              ...(endpoint.trim() ? { endpoints: { a2a: endpoint.trim() } } : {}),
            };
            setDone(await hub.agents.register(body, { idempotencyKey: crypto.randomUUID() }));
          } catch (err) {
            setError(err);
          } finally {
            setBusy(false);
          }
        }}
      >
        <ProfileFields value={profile} onChange={setProfile} />
        <label className="field">
          <span>Endpoint URL (optional)</span>
          <input type="url" value={endpoint} onChange={(e) => setEndpoint(e.target.value)} />
        </label>
        <button type="submit" disabled={busy || !profile.name.trim()}>
          {busy ? "Registering (minting the identity)…" : "Register"}
        </button>
        {error ? <ErrorNote error={error} /> : null}
      </form>
    </>
  );
}
